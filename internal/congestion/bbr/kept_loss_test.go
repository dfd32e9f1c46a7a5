package bbr

import (
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// labPage loads one page of the lab's quic-mobile experiment over a kept
// connection as its client does, the next page right after: a 15 KB
// document, then, once its requests have reached the edge (half a round
// trip), 182 KB of subresources. It reports the controller's info when
// the page's first packet left.
func labPage(t *testing.T, s *sim, b *BBR, page int) (startInfo struct{ pacing, maxBw, cwnd int64 }) {
	t.Helper()
	info := b.Info()
	startInfo.pacing, startInfo.maxBw, startInfo.cwnd = info.PacingRate, info.BottleneckBandwidth, info.CongestionWindow
	for i, part := range []int64{15_000, 182_000} {
		if i > 0 {
			s.run(s.path.minRTT() / 2)
		}
		target := s.stats.delivered + part
		s.send(part)
		// A guard against a livelock only: the emulator's loss chain, like
		// the lab's, advances per packet, so a run of loss can take every
		// probe of several backed-off probe timeouts.
		if !s.runUntil(func() bool { return s.stats.delivered >= target }, 10*time.Minute) {
			t.Fatalf("page %d did not finish", page)
		}
	}
	s.run(time.Millisecond)
	return startInfo
}

// A kept connection over wifi-last-meters (50 Mbit/s, 10 ms, 5 ms of
// jitter, 5% independent loss, the lab's 64-packet queue) starts its pages
// with its model whole: paced at the bandwidth it measured, with at least
// a BDP of window. A page's rounds are small (its document's, its last
// flights': a few to a few dozen packets), and one or two random losses
// in such a round are a 10-30% loss rate; the loss threshold, capped at
// 15% whatever the round's size, read them as congestion and cut the
// short-term model by BBR.Beta, and the random-loss estimate, a moving
// average rising from zero, kept the threshold at the draft's 2% over the
// first pages. In the lab's trace of a kept connection (main 7d0eb33's
// edge) pages then left at 25-35 Mbit/s; here, before the change, 136 of
// the 370 pages after Startup (20 connections of 20 pages) started cut,
// 66 after.
func TestKeptPagesKeepModelOnLossyWifi(t *testing.T) {
	p := wifiInOrder
	p.queue = 64 * 1500 // the lab's netem queue: 64 packets
	cut, pages := 0, 0
	for seed := uint64(1); seed <= 20; seed++ {
		s, b := newSimBBR(p, seed)
		for page := range 21 {
			st := labPage(t, s, b, page)
			if page == 0 || b.state == startup {
				continue // the page that opened the connection; Startup has no cuts
			}
			pages++
			if float64(st.pacing) < 0.9*float64(st.maxBw) || st.cwnd < p.bdp() {
				cut++
			}
		}
	}
	t.Logf("%d of %d kept pages started with the model cut (paced under 0.9 max_bw, or less than a BDP of window)", cut, pages)
	if share := float64(cut) / float64(pages); share > 0.25 {
		t.Errorf("%.0f%% of kept pages started with the model cut, want at most 25%%", 100*share)
	}
}

// One random loss in a round of a few packets is no loss rate: the
// threshold lets one packet of any round go on a path with random loss,
// and still calls three of ten lost, or a fifth of a large flight,
// congestion. Without random loss it is the draft's 2%.
func TestLossThresholdOfSmallRounds(t *testing.T) {
	b := newBBR(congestion.Conn{InitialMaxDatagramSize: simMSS}, WithSeed(1))
	b.randomLoss = 0.05
	for _, c := range []struct {
		packets, lost int64
		tooHigh       bool
	}{
		{4, 1, false},  // 25%: the lab's document round, one loss
		{10, 2, false}, // 20%
		{10, 3, true},  // 30%: 1% likely at 5% random loss
		{100, 10, false},
		{100, 20, true}, // a queue overflowing under a 1.25x probe
	} {
		volume := c.packets * b.smss
		got := float64(c.lost*b.smss) > float64(volume)*b.lossThreshold(volume)
		if got != c.tooHigh {
			t.Errorf("%d of %d packets lost at 5%% random loss: too high %v, want %v (threshold %.3f)",
				c.lost, c.packets, got, c.tooHigh, b.lossThreshold(volume))
		}
	}
	b.randomLoss = 0
	if th := b.lossThreshold(4 * b.smss); th != lossThresh {
		t.Errorf("threshold %.3f without random loss, want the draft's %.2f", th, lossThresh)
	}
}
