package bbr

import (
	"testing"
	"time"
)

// lteIndiaCongested is the lab's lte-india-congested profile: 2 Mbit/s,
// 425 ms RTT with 100 ms of jitter, 7% random loss, a one-BDP queue.
var lteIndiaCongested = path{rate: mbit(2), delay: 212500 * time.Microsecond, jitter: 100 * time.Millisecond, loss: 0.07}

// keptPage is one page load of the lab's (a 15 KB document, then 182 KB of
// subresources requested once the document arrived) over a kept connection,
// followed by half a second of idle time.
func keptPage(t *testing.T, s *sim, page int) {
	t.Helper()
	for i, part := range []int64{15_000, 182_000} {
		if i > 0 {
			s.run(s.path.minRTT() / 2) // the requests' way to the edge
		}
		target := s.stats.delivered + part
		s.send(part)
		if !s.runUntil(func() bool { return s.stats.delivered >= target }, time.Minute) {
			t.Fatalf("page %d did not finish in a minute", page)
		}
	}
	s.run(500 * time.Millisecond)
}

// A kept connection whose pages are larger than the BDP leaves Startup
// although every round of its pages is app-limited (each page starts from
// idle): its flights fill the pipe, and three pages in a row without 25%
// more delivery rate are the draft's bandwidth plateau. Before, on
// lte-india-congested, Startup never ended (random loss never meets the
// loss exit's criteria on a page's rounds), and each page, sent at
// Startup's 2.77x pace with a window of twice the BDP, overfilled the
// queue: 1.4 overflow drops per page here, 5.6 in the lab.
func TestKeptPagesLargerThanBDPLeaveStartup(t *testing.T) {
	const pages = 21
	for seed := uint64(1); seed <= 6; seed++ {
		s, b := newSimBBR(lteIndiaCongested, seed)
		trace := traceStates(s, b)
		keptPage(t, s, 0)
		first := s.stats
		for page := 1; page < pages; page++ {
			keptPage(t, s, page)
		}
		leftAt, bw := leftStartup(trace)
		drops := float64(s.stats.overflowDrops-first.overflowDrops) / (pages - 1)
		t.Logf("seed %d: left Startup at %v with bw %.2f of the link; %.2f overflow drops per page after the first",
			seed, leftAt.Round(time.Millisecond), float64(bw)/lteIndiaCongested.rate, drops)
		if leftAt == 0 {
			t.Errorf("seed %d: still in Startup after %d pages", seed, pages)
			continue
		}
		if r := float64(bw) / lteIndiaCongested.rate; r < 0.85 || r > 1.25 {
			t.Errorf("seed %d: left Startup with bw %.2f of the link, want within 0.85-1.25", seed, r)
		}
		if drops > 0.5 {
			t.Errorf("seed %d: %.2f overflow drops per page, want at most 0.5", seed, drops)
		}
	}
}

// Pages smaller than the BDP fill no pipe, so their flights cannot show
// the bottleneck's rate, and Startup goes on as the draft has it for an
// app-limited connection: ending it on such pages would pace the next ones
// at an estimate well below the link (0.56 of lte-india's rate in one
// simulated run, at a tenth more time per page). On lte-india (5 Mbit/s, 350 ms, a 218 KB BDP)
// the lab's 197 KB pages keep a kept connection in Startup, and its queue,
// one BDP deep, takes each page's burst without a drop.
func TestKeptPagesSmallerThanBDPStayInStartup(t *testing.T) {
	p := path{rate: mbit(5), delay: 175 * time.Millisecond, jitter: 75 * time.Millisecond, loss: 0.035}
	for seed := uint64(1); seed <= 4; seed++ {
		s, b := newSimBBR(p, seed)
		trace := traceStates(s, b)
		for page := range 21 {
			keptPage(t, s, page)
		}
		if at, bw := leftStartup(trace); at > 0 && float64(bw) < 0.85*p.rate {
			t.Errorf("seed %d: left Startup at %v with bw %.2f of the link, want Startup to go on below 0.85",
				seed, at.Round(time.Millisecond), float64(bw)/p.rate)
		}
		if s.stats.overflowDrops > 0 {
			t.Errorf("seed %d: %d overflow drops", seed, s.stats.overflowDrops)
		}
	}
}

// leftStartup is when a trace first left Startup for Drain or ProbeBW
// (ProbeRTT returns to Startup), and the bandwidth estimate then; 0 if it
// never did.
func leftStartup(trace *[]transition) (time.Duration, int64) {
	for _, tr := range *trace {
		if tr.state == drain || (tr.state != startup && tr.state != probeRTT) {
			return tr.at, tr.info.BottleneckBandwidth
		}
	}
	return 0, 0
}
