package bbr

import (
	"math"
	"testing"
	"time"
)

// After Startup and Drain, ProbeBW paces at the bottleneck rate within a
// few round trips: 0.99 of the estimate while cruising, 0.9 and 1.25 of it
// in the DOWN and UP phases (§5.3.3), and never far off it.
func TestPacingRateConvergesToBottleneck(t *testing.T) {
	p := path{rate: mbit(20), delay: 25 * time.Millisecond}
	s, b := newBulkBBR(p, 2)
	if !s.runUntil(func() bool { return b.state != startup }, 40*p.minRTT()) {
		t.Fatal("never left Startup")
	}
	exitAt := s.elapsed()
	if !s.runUntil(func() bool { return b.isInProbeBWState() }, 5*p.minRTT()) {
		t.Fatalf("still in %s five round trips after Startup", b.state)
	}
	t.Logf("Startup ended at %v, ProbeBW began %v later (%.1f round trips)", exitAt, s.elapsed()-exitAt,
		float64(s.elapsed()-exitAt)/float64(p.minRTT()))

	var cruise, all []float64
	s.afterAck = func() {
		r := float64(b.pacer.rateBytes()) / p.rate
		all = append(all, r)
		if b.state == probeBWCruise {
			cruise = append(cruise, r)
		}
	}
	s.run(20 * time.Second)
	lo, hi := minMax(all)
	clo, chi := minMax(cruise)
	t.Logf("pacing rate / link over 20 s: %.3f-%.3f; cruising %.3f-%.3f (%d ACKs); goodput %.3f",
		lo, hi, clo, chi, len(cruise), float64(s.stats.delivered)/(p.rate*s.elapsed().Seconds()))
	if len(cruise) == 0 || clo < 0.95 || chi > 1.02 {
		t.Errorf("cruising pacing rate %.3f-%.3f of the link, want 0.99 within 4%%", clo, chi)
	}
	if lo < 0.85 || hi > 1.3 {
		t.Errorf("pacing rate strayed to %.3f-%.3f of the link", lo, hi)
	}
	if s.stats.wakeWithoutBudget != 0 {
		t.Errorf("%d times the pacer refused a packet without naming a later time", s.stats.wakeWithoutBudget)
	}
}

// A real queue overflow while probing bandwidth sets inflight_longterm
// (BBRv3's inflight_hi, §5.5.10.2) near what the path holds, the BDP plus
// the buffer, and BBR then keeps losses low, where a loss-blind sender
// would overflow the buffer at every probe.
func TestQueueOverflowLowersInflightLongterm(t *testing.T) {
	p := path{rate: mbit(10), delay: 20 * time.Millisecond}
	p.queue = p.bdp() / 4 // a shallow buffer
	s, b := newBulkBBR(p, 3)
	s.run(5 * time.Second)
	if b.inflightLongterm == infinite {
		t.Fatal("inflight_longterm unset after 5 s of overflowing a shallow buffer")
	}
	before := s.stats
	var maxLongterm int64
	s.afterAck = func() { maxLongterm = max(maxLongterm, min(b.inflightLongterm, maxVolume)) }
	s.run(30 * time.Second)
	holds := p.bdp() + p.queue
	lossRate := float64(s.stats.overflowDrops-before.overflowDrops) / float64(s.stats.packetsSent-before.packetsSent)
	put := goodput(p, before, s.stats, 30*time.Second)
	t.Logf("path holds %d bytes (BDP %d + buffer %d); inflight_longterm now %d, at most %d; overflow loss %.2f%%; goodput %.3f; queue delay %v",
		holds, p.bdp(), p.queue, b.inflightLongterm, maxLongterm, 100*lossRate, put, (s.stats.queueDelaySum-before.queueDelaySum)/time.Duration(s.stats.queuedPackets-before.queuedPackets))
	if float64(maxLongterm) > 1.3*float64(holds) {
		t.Errorf("inflight_longterm reached %d, above 1.3x what the path holds (%d)", maxLongterm, holds)
	}
	if lossRate > 0.02 {
		t.Errorf("overflow loss %.2f%%, want at most 2%% once inflight_longterm is set", 100*lossRate)
	}
	if put < 0.9 {
		t.Errorf("goodput %.3f of the link, want at least 0.9", put)
	}
}

func minMax(xs []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}
