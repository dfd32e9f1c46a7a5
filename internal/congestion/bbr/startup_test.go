package bbr

import (
	"math"
	"testing"
	"time"
)

// Startup ends once the pipe is full, with a bandwidth estimate within 15%
// of the bottleneck's rate, in about log2(BDP/initial window) + 3 rounds
// (§5.3.1): on clean paths of several sizes, with a shallow buffer, and on
// a lossy radio link like the lab's lte-india profile, whose random loss
// must not end Startup early.
func TestStartupExitsNearBDP(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    path
	}{
		{"1Mbit-100ms", path{rate: mbit(1), delay: 50 * time.Millisecond}},
		{"10Mbit-40ms", path{rate: mbit(10), delay: 20 * time.Millisecond}},
		{"50Mbit-40ms", path{rate: mbit(50), delay: 20 * time.Millisecond}},
		{"100Mbit-100ms", path{rate: mbit(100), delay: 50 * time.Millisecond}},
		{"10Mbit-40ms-shallow", path{rate: mbit(10), delay: 20 * time.Millisecond, queue: -4}},
		{"lte-india-5Mbit-350ms-3.5%", path{rate: mbit(5), delay: 175 * time.Millisecond, loss: 0.035}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			if p.queue < 0 { // a fraction of the BDP
				p.queue = p.bdp() / -p.queue
			}
			s, b := newBulkBBR(p, 1)
			trace := traceStates(s, b)
			if !s.runUntil(func() bool { return b.state != startup }, 60*p.minRTT()) {
				t.Fatalf("still in Startup after 60 round trips; bw %.0f of %.0f", b.maxBw, p.rate)
			}
			exit := (*trace)[1]
			ratio := float64(exit.info.BottleneckBandwidth) / p.rate
			bdpPackets := float64(p.bdp()) / simMSS
			expectRounds := math.Log2(max(bdpPackets/initialCwndPackets, 1)) + fullBwRounds
			t.Logf("BDP %.0f packets: left Startup for %s after %d rounds (%v); bw %.3f of the link; cwnd %d (%.2f BDP); drops %d random, %d overflow",
				bdpPackets, exit.state, b.roundCount, exit.at, ratio, exit.info.CongestionWindow,
				float64(exit.info.CongestionWindow)/float64(p.bdp()), s.stats.randomDrops, s.stats.overflowDrops)
			if ratio < 0.85 || ratio > 1.15 {
				t.Errorf("bw estimate at Startup exit is %.3f of the link rate, want within 15%%", ratio)
			}
			if float64(b.roundCount) > expectRounds+4 {
				t.Errorf("Startup took %d rounds, want about %.1f", b.roundCount, expectRounds)
			}
		})
	}
}
