package bbr

import (
	"testing"
	"time"
)

// wifiLastMeters is the lab's wifi-last-meters profile: 50 Mbit/s, 10 ms
// RTT with 5 ms of jitter each way, 5% random loss. RFC 9002's time
// threshold (9/8 of the RTT, which the simulated sender keeps) declares
// packets still in flight lost there.
var wifiLastMeters = path{rate: mbit(50), delay: 5 * time.Millisecond, jitter: 5 * time.Millisecond, loss: 0.05}

// Told of its spurious losses, BBR undoes the bounds they lowered and
// keeps more of the link than when the transport hides them (as upstream
// quic-go does), with the same packets lost at random.
func TestSpuriousLossUndoKeepsRate(t *testing.T) {
	const warmup, measure = 2 * time.Second, 20 * time.Second
	run := func(hide bool) (put float64, st simStats, b *BBR) {
		s, b := newBulkBBR(wifiLastMeters, 7)
		s.hideSpurious = hide
		s.run(warmup)
		before := s.stats
		s.run(measure)
		return goodput(wifiLastMeters, before, s.stats, measure), diffStats(before, s.stats), b
	}
	hiddenPut, hidden, _ := run(true)
	undonePut, undone, _ := run(false)
	t.Logf("hidden: goodput %.3f, declared lost %d, spurious %d; undone: goodput %.3f, declared lost %d, spurious %d",
		hiddenPut, hidden.declaredLost, hidden.spuriousLosses, undonePut, undone.declaredLost, undone.spuriousLosses)
	if undone.spuriousLosses == 0 {
		t.Fatal("no spurious losses on the jittery path: nothing tested")
	}
	if undonePut < hiddenPut {
		t.Errorf("goodput with undo %.3f < %.3f without", undonePut, hiddenPut)
	}
}
