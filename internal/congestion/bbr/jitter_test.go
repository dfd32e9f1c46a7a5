package bbr

import (
	"testing"
	"time"
)

// wifiInOrder is the lab's wifi-last-meters profile on its fixed link,
// which keeps packets in order: 50 Mbit/s, 10 ms RTT with 5 ms of jitter
// each way, 5% independent loss.
var wifiInOrder = path{rate: mbit(50), delay: 5 * time.Millisecond, jitter: 5 * time.Millisecond, loss: 0.05}

// A round's fastest packet is queued only when it exceeds min_rtt by more
// than the path's jitter as well: on a path without jitter 2 ms is enough,
// as before.
func TestQueuedAllowsForJitter(t *testing.T) {
	const minRTT = 6 * time.Millisecond
	for _, c := range []struct {
		roundMin, jitter time.Duration
		queued           bool
	}{
		{7 * time.Millisecond, 0, false},
		{9 * time.Millisecond, 0, true},
		{12 * time.Millisecond, 8 * time.Millisecond, false}, // a small round of a jittery path
		{15 * time.Millisecond, 8 * time.Millisecond, true},  // a standing queue longer than the jitter
	} {
		r := lossRound{minRTT: c.roundMin, jitter: c.jitter}
		if got := r.queued(minRTT); got != c.queued {
			t.Errorf("round min %v, jitter %v: queued %v, want %v", c.roundMin, c.jitter, got, c.queued)
		}
	}
}

// The jitter estimate follows the spread of a round's RTT samples: a few
// milliseconds on wifi-last-meters (up to 10 ms from the fastest to the
// slowest packet; a bulk flow's packets, 0.2 ms apart, mostly wait for the
// one before them, as the lab's link keeps their order, which narrows
// it), under one on a path without jitter (a bulk flow's rounds there
// differ only by the queue ProbeBW's cycle builds).
func TestJitterEstimate(t *testing.T) {
	for _, c := range []struct {
		name     string
		p        path
		min, max time.Duration
	}{
		{"wifi-last-meters", wifiInOrder, 2 * time.Millisecond, 12 * time.Millisecond},
		{"no jitter", path{rate: mbit(50), delay: 5 * time.Millisecond, loss: 0.05}, 0, time.Millisecond},
	} {
		s, b := newBulkBBR(c.p, 3)
		s.run(5 * time.Second)
		t.Logf("%s: jitter estimate %v, min_rtt %v", c.name, b.rttJitter, b.minRTT)
		if b.rttJitter < c.min || b.rttJitter > c.max {
			t.Errorf("%s: jitter estimate %v, want %v-%v", c.name, b.rttJitter, c.min, c.max)
		}
	}
}

// A kept connection over wifi-last-meters keeps its window from page to
// page: forty pages like the lab's (a 20 KB document, then 177 KB of
// subresources), 20 ms apart. min_rtt settles on the path's luckiest
// packet (6-7 ms against the 10 ms mean), and the fastest packet of a
// page's small rounds exceeded it by more than the 2 ms once allowed, so
// each random loss in such a round read as another flow's standing queue:
// the short-term model was cut 48 times in 40 pages, and 8 of the 36
// pages after the fourth started with less than one BDP (64 KB) of window,
// down to 38 KB (the lab's edge fell from 176 KB to 12-26 KB at a kept
// connection's last pages). With the jitter allowed for: 11 cuts, and
// every page starts with a BDP or more (74 KB at least).
func TestJitterKeepsKeptWindow(t *testing.T) {
	p := wifiInOrder
	s, b := newSimBBR(p, 1)
	cuts := 0
	lo := int64(infinite)
	s.afterAck = func() {
		if b.inflightShortterm < lo {
			cuts++
		}
		lo = b.inflightShortterm
	}
	small, minCwnd := loadKeptPages(t, s, b)
	t.Logf("%d cuts of the short-term model; %d of 36 pages started with less than one BDP (%d bytes) of window, the least %d; jitter %v, min_rtt %v, random loss %.4f",
		cuts, small, p.bdp(), minCwnd, b.rttJitter, b.minRTT, b.randomLoss)
	if small > 2 {
		t.Errorf("%d of 36 pages started with less than one BDP of window, want at most 2", small)
	}
	if cuts > 16 {
		t.Errorf("the short-term model was cut %d times in 40 pages, want at most 16", cuts)
	}
}
