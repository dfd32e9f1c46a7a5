package bbr

import (
	"testing"
	"time"
)

// A bulk flow whose min RTT is never undercut enters ProbeRTT every 5 s
// (BBR.ProbeRTTInterval), holds cwnd at half the BDP for 200 ms and a
// round, and returns to ProbeBW (§5.3.4).
func TestProbeRTTEveryFiveSeconds(t *testing.T) {
	p := path{rate: mbit(10), delay: 20 * time.Millisecond}
	s, b := newBulkBBR(p, 6)
	var maxProbeCwnd int64
	s.afterAck = func() {
		if b.state == probeRTT {
			maxProbeCwnd = max(maxProbeCwnd, b.cwnd)
		}
	}
	trace := traceStates(s, b)
	s.run(31 * time.Second)

	var entries, exits []time.Duration
	for i, tr := range *trace {
		if tr.state == probeRTT {
			entries = append(entries, tr.at)
			if i+1 < len(*trace) {
				exits = append(exits, (*trace)[i+1].at)
				if next := (*trace)[i+1].state; !isProbeBW(next) {
					t.Errorf("ProbeRTT at %v left for %s, want ProbeBW", tr.at, next)
				}
			}
		}
	}
	t.Logf("ProbeRTT entered at %v, left at %v; cwnd in ProbeRTT at most %d (BDP %d)", entries, exits, maxProbeCwnd, p.bdp())
	if len(entries) < 5 {
		t.Fatalf("%d ProbeRTTs in 31 s, want 5 or more", len(entries))
	}
	for i := 1; i < len(entries); i++ {
		if gap := entries[i] - entries[i-1]; gap < probeRTTInterval || gap > probeRTTInterval+probeRTTDuration+10*p.minRTT() {
			t.Errorf("ProbeRTTs %v apart, want 5 s plus one ProbeRTT", gap)
		}
	}
	for i, exit := range exits {
		if d := exit - entries[i]; d < probeRTTDuration || d > probeRTTDuration+4*p.minRTT() {
			t.Errorf("ProbeRTT lasted %v, want 200 ms and a round or two", d)
		}
	}
	if want := max(p.bdp()/2, minPipeCwndPackets*simMSS); maxProbeCwnd > want+simMSS {
		t.Errorf("cwnd in ProbeRTT reached %d, want at most half the BDP (%d)", maxProbeCwnd, want)
	}
}

// An application that pauses now and then refreshes min_rtt itself and
// never pays for ProbeRTT.
func TestProbeRTTSkippedWhenIdleRefreshesMinRTT(t *testing.T) {
	p := path{rate: mbit(10), delay: 20 * time.Millisecond}
	s, b := newSimBBR(p, 6)
	trace := traceStates(s, b)
	// 500 KB every 2 s: 0.4 s of sending, then idle.
	for i := range 15 {
		s.at(time.Duration(i)*2*time.Second, func() { s.send(500_000) })
	}
	s.run(30 * time.Second)
	for _, tr := range *trace {
		if tr.state == probeRTT {
			t.Errorf("ProbeRTT at %v although the flow idles every 2 s", tr.at)
		}
	}
	if s.stats.delivered < 15*500_000 {
		t.Errorf("delivered %d bytes of %d", s.stats.delivered, 15*500_000)
	}
}

func isProbeBW(st state) bool {
	return st >= probeBWDown && st <= probeBWUp
}
