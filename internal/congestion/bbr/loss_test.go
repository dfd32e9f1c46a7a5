package bbr

import (
	"fmt"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// Random loss of a few percent does not cut BBR's rate: it keeps at least
// 80% of the link up to 3% loss, where a NewReno sender like quic-go's
// collapses to a fraction of it. The figures (goodput share, mean queue
// delay, drops) are logged for each loss rate.
func TestRandomLossKeepsRate(t *testing.T) {
	const warmup, measure = 10 * time.Second, 60 * time.Second
	for _, base := range []struct {
		name string
		p    path
	}{
		{"10Mbit-100ms", path{rate: mbit(10), delay: 50 * time.Millisecond}},
		{"lte-india-5Mbit-350ms", path{rate: mbit(5), delay: 175 * time.Millisecond}},
		{"lte-india-5Mbit-350ms-jitter-75ms", path{rate: mbit(5), delay: 175 * time.Millisecond, jitter: 75 * time.Millisecond}},
	} {
		t.Run(base.name, func(t *testing.T) {
			t.Logf("%6s | %-38s | %s", "loss", "BBR: goodput, queue delay, drops", "NewReno goodput")
			for _, loss := range []float64{0, 0.005, 0.01, 0.015, 0.02, 0.03, 0.035, 0.05} {
				p := base.p
				p.loss = loss

				s, b := newBulkBBR(p, 4)
				s.run(warmup)
				before := s.stats
				s.run(measure)
				put := goodput(p, before, s.stats, measure)
				delta := diffStats(before, s.stats)

				r := newSim(p, newReno(simMSS), 4)
				r.unlimited = true
				r.run(warmup)
				rBefore := r.stats
				r.run(measure)
				renoPut := goodput(p, rBefore, r.stats, measure)

				longterm := "unset"
				if b.inflightLongterm != infinite {
					longterm = fmt.Sprintf("%.2f BDP", float64(b.inflightLongterm)/float64(p.bdp()))
				}
				t.Logf("%5.1f%% | %.3f, %8v, %4d random %3d overflow | %.3f   (inflight_longterm %s)",
					100*loss, put, delta.meanQueueDelay().Round(time.Microsecond), delta.randomDrops, delta.overflowDrops,
					renoPut, longterm)
				if loss <= 0.03 && put < 0.8 {
					t.Errorf("%.1f%% random loss: BBR goodput %.3f of the link, want at least 0.8", 100*loss, put)
				}
				if loss == 0.015 && renoPut > 0.5 {
					t.Errorf("1.5%% random loss: NewReno kept %.3f of the link; the reference should collapse", renoPut)
				}
			}
		})
	}
}

// diffStats is what happened between two snapshots.
func diffStats(before, after simStats) simStats {
	return simStats{
		sent:           after.sent - before.sent,
		delivered:      after.delivered - before.delivered,
		packetsSent:    after.packetsSent - before.packetsSent,
		randomDrops:    after.randomDrops - before.randomDrops,
		overflowDrops:  after.overflowDrops - before.overflowDrops,
		declaredLost:   after.declaredLost - before.declaredLost,
		spuriousLosses: after.spuriousLosses - before.spuriousLosses,
		ceMarks:        after.ceMarks - before.ceMarks,
		queueDelaySum:  after.queueDelaySum - before.queueDelaySum,
		queuedPackets:  after.queuedPackets - before.queuedPackets,
		maxQueue:       after.maxQueue, // since it was last reset
	}
}

// Random loss does not end a bandwidth probe: only a loss rate above what
// the path's queue-free loss explains does (lossThreshold), so
// inflight_longterm is not ratcheted down by noise; a path that loses
// packets only to overflows keeps the draft's threshold.
func TestLossThresholdFollowsRandomLoss(t *testing.T) {
	p := path{rate: mbit(10), delay: 50 * time.Millisecond, loss: 0.03}
	s, b := newBulkBBR(p, 5)
	s.run(30 * time.Second)
	t.Logf("random loss estimate %.4f, loss threshold over one BDP %.4f", b.randomLoss, b.lossThreshold(p.bdp()))
	if b.randomLoss < 0.02 || b.randomLoss > 0.04 {
		t.Errorf("random loss estimated at %.4f on a path losing 3%%", b.randomLoss)
	}

	clean := path{rate: mbit(10), delay: 50 * time.Millisecond}
	clean.queue = clean.bdp() / 4
	s, b = newBulkBBR(clean, 5)
	s.run(30 * time.Second)
	if th := b.lossThreshold(clean.bdp()); th != lossThresh {
		t.Errorf("loss threshold %.4f on a path whose only losses are overflows, want the draft's %.2f", th, lossThresh)
	}
}

func ExampleNew() {
	var now congestion.Time
	cc := New(congestion.Conn{InitialMaxDatagramSize: 1252, Now: func() congestion.Time { return now }})
	fmt.Println(cc.Info().State, cc.Info().CongestionWindow)
	// Output: startup 40064
}
