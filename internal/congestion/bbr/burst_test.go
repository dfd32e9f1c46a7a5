package bbr

import (
	"testing"
	"time"
)

// wifiBursty is the lab's wifi-bursty profile: wifi-last-meters (50
// Mbit/s, 10 ms RTT with 5 ms of jitter, 5% loss) with the loss in runs of
// 6 packets on average.
var wifiBursty = path{rate: mbit(50), delay: 5 * time.Millisecond, jitter: 5 * time.Millisecond, loss: 0.05, burstLen: 6}

// modelCuts follows b's bandwidth model round by round after each ACK and
// counts the rounds it spent below share of max_bw (cut by the short-term
// model).
func modelCuts(s *sim, b *BBR, share float64) (roundsCut *int) {
	roundsCut = new(int)
	s.afterAck = func() {
		if b.roundStart && b.maxBw > 0 && b.bw < share*b.maxBw {
			*roundsCut++
		}
	}
	return roundsCut
}

// Runs of radio loss are not congestion. A bulk flow over wifi-bursty
// keeps its bandwidth model (BBR.bw within 10% of max_bw) in most rounds,
// each run of losses counting as one loss event against the path's random
// loss events (burst.go); read as congestion, the runs kept the model cut
// in three rounds of four (before burst.go: 74.6% of rounds, goodput
// 0.79 of the link; with it 28.5%, 0.92).
func TestLossBurstsKeepModel(t *testing.T) {
	const warmup, measure = 5 * time.Second, 20 * time.Second
	s, b := newBulkBBR(wifiBursty, 21)
	s.run(warmup)
	before := s.stats
	startRound := b.roundCount
	cut := modelCuts(s, b, 0.9)
	s.run(measure)
	rounds := int(b.roundCount - startRound)
	put := goodput(wifiBursty, before, s.stats, measure)
	d := diffStats(before, s.stats)
	t.Logf("goodput %.3f; %d of %d rounds with bw under 0.9 max_bw; random loss %.4f in %.4f events per packet; %d packets lost at random, %d to overflow",
		put, *cut, rounds, b.randomLoss, b.randomLossEvents, d.randomDrops, d.overflowDrops)
	if !b.lossesComeInRuns() {
		t.Errorf("random loss %.4f in %.4f events per packet: runs of loss not recognised", b.randomLoss, b.randomLossEvents)
	}
	if share := float64(*cut) / float64(rounds); share > 0.4 {
		t.Errorf("the model was cut in %.1f%% of rounds, want at most 40%%", 100*share)
	}
	if put < 0.85 {
		t.Errorf("goodput %.3f of the link, want at least 0.85", put)
	}
}

// A kept connection over wifi-bursty keeps its window from page to page:
// forty pages like the lab's (a 20 KB document, then 177 KB of
// subresources), 20 ms apart. Each lossy round outside a bandwidth probe
// cuts the short-term model to the round's delivery, which for the small
// rounds of a page is little, so radio runs read as congestion added up
// from page to page until the next probe: before burst.go, 7 of the 36
// pages after the fourth started with less than one BDP of window, down to
// 38 KB (the lab's qlog: 36-43 KB at page start against a 62 KB BDP); with
// it, 2 (both after probe timeouts, which lower the window on their own).
func TestLossBurstsKeepKeptWindow(t *testing.T) {
	p := wifiBursty
	s, b := newSimBBR(p, 1)
	small, minCwnd := loadKeptPages(t, s, b)
	t.Logf("%d of 36 pages started with less than one BDP (%d bytes) of window, the least %d; random loss %.4f in %.4f events per packet",
		small, p.bdp(), minCwnd, b.randomLoss, b.randomLossEvents)
	if small > 3 {
		t.Errorf("%d of 36 pages started with less than one BDP of window, want at most 3", small)
	}
}

// loadKeptPages loads forty pages like the lab's (a 20 KB document, then
// 177 KB of subresources), 20 ms apart, over s, and returns how many of
// the 36 after the fourth started with less than one BDP of window, and
// the least window any of those started with.
func loadKeptPages(t *testing.T, s *sim, b *BBR) (small int, minCwnd int64) {
	t.Helper()
	minCwnd = infinite
	for page := range 40 {
		if page > 3 {
			minCwnd = min(minCwnd, b.cwnd)
			if b.cwnd < s.path.bdp() {
				small++
			}
		}
		for _, part := range []int64{20_000, 177_000} {
			target := s.stats.delivered + part
			s.send(part)
			if !s.runUntil(func() bool { return s.stats.delivered >= target }, 10*time.Minute) {
				t.Fatalf("page %d did not finish in a minute", page)
			}
		}
		s.run(20 * time.Millisecond)
	}
	return small, minCwnd
}

// A real queue still cuts the model on a path that loses packets in runs:
// when the bottleneck falls from 50 to 20 Mbit/s under a bulk flow on
// wifi-bursty, the overflow drops packets one at a time all along the
// flights, in more loss events than the path's runs explain, so the
// short-term model falls to the new rate within a few hundred round trips
// and the queue does not stay full. Taking every loss for a random run
// fails this: 14% of packets then overflow the queue.
func TestQueueCutsModelOnBurstyPath(t *testing.T) {
	p := wifiBursty
	s, b := newBulkBBR(p, 23)
	s.run(10 * time.Second)
	if !b.lossesComeInRuns() {
		t.Fatalf("random loss %.4f in %.4f events per packet: runs of loss not recognised", b.randomLoss, b.randomLossEvents)
	}
	const newRate = 20
	s.net.setRate(mbit(newRate))
	s.run(time.Second)
	cutTo := b.bw * 8 / 1e6
	before := s.stats
	s.run(5 * time.Second)
	d := diffStats(before, s.stats)
	overflow := float64(d.overflowDrops) / float64(d.packetsSent)
	t.Logf("a second after the drop to %d Mbit/s: BBR.bw %.1f Mbit/s (max_bw %.1f); the next 5 s: goodput %.3f of the new rate, %.2f%% of packets dropped by the full queue, queue delay %v",
		newRate, cutTo, b.maxBw*8/1e6, goodput(s.path, before, s.stats, 5*time.Second), 100*overflow, d.meanQueueDelay().Round(time.Microsecond))
	if cutTo > 1.25*newRate {
		t.Errorf("BBR.bw %.1f Mbit/s a second after the link fell to %d Mbit/s, want the model cut to near it", cutTo, newRate)
	}
	if overflow > 0.05 {
		t.Errorf("%.2f%% of packets dropped by the full queue after the drop, want at most 5%%", 100*overflow)
	}
}
