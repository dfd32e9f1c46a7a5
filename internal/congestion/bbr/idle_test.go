package bbr

import (
	"testing"
	"time"
)

// A kept connection that goes idle keeps its model (§5.4): when the next
// response starts, BBR paces its first flight at the estimated bandwidth
// with the full window, so the response arrives at the link rate instead
// of climbing from a small window as a new connection does; and an idle
// period longer than ProbeRTTInterval does not start ProbeRTT as the
// connection resumes (a ProbeRTT due later during the response may).
func TestRestartFromIdlePacesAtEstimatedBandwidth(t *testing.T) {
	p := path{rate: mbit(5), delay: 175 * time.Millisecond} // lte-india's rate and RTT
	const response = 1_000_000
	for _, idle := range []time.Duration{3 * time.Second, 7 * time.Second} {
		s, b := newSimBBR(p, 7)
		s.send(3_000_000)
		if !s.runUntil(func() bool { return s.stats.delivered >= 3_000_000 }, 30*time.Second) {
			t.Fatal("first transfer did not finish")
		}
		s.run(idle)
		if !b.isInProbeBWState() {
			t.Fatalf("in %s after %v idle, want ProbeBW", b.state, idle)
		}
		trace := traceStates(s, b)
		start, delivered := s.elapsed(), s.stats.delivered
		s.send(response)
		first := b.Info()
		if !s.runUntil(func() bool { return s.stats.delivered >= delivered+response }, 30*time.Second) {
			t.Fatal("second transfer did not finish")
		}
		kept := s.elapsed() - start

		fresh, _ := newSimBBR(p, 7)
		fresh.send(response)
		fresh.runUntil(func() bool { return fresh.stats.delivered >= response }, 30*time.Second)
		cold := fresh.elapsed()

		ideal := time.Duration(float64(response)/p.rate*float64(time.Second)) + p.minRTT()
		t.Logf("idle %v: first flight paced at %.3f of the link, cwnd %.2f BDP; 1 MB took %v on the kept connection, %v on a new one (ideal %v)",
			idle, float64(first.PacingRate)/p.rate, float64(first.CongestionWindow)/float64(p.bdp()), kept, cold, ideal)
		if r := float64(first.PacingRate) / p.rate; r < 0.95 || r > 1.05 {
			t.Errorf("first flight after idle paced at %.3f of the link, want the estimate (0.99)", r)
		}
		if first.CongestionWindow < p.bdp() {
			t.Errorf("cwnd %d after idle, below the BDP %d", first.CongestionWindow, p.bdp())
		}
		if kept > ideal*12/10 {
			t.Errorf("kept connection took %v, want within 20%% of %v", kept, ideal)
		}
		if kept >= cold {
			t.Errorf("kept connection (%v) no faster than a new one (%v)", kept, cold)
		}
		for _, tr := range *trace {
			if tr.state == probeRTT && tr.at < start+2*p.minRTT() {
				t.Errorf("ProbeRTT at %v, on the first flight after an idle period", tr.at)
			}
		}
	}
}
