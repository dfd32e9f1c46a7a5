package bbr

import (
	"testing"
	"time"
)

// One BBR flow and one NewReno flow through one bottleneck with a finite
// buffer: the loss-based flow keeps a fair part of the link, so the
// allowance for random loss (lossThreshold, congestiveLoss) does not turn
// BBR against the flows that share its queue. The shares and the queue
// delay are logged for buffers of one and three BDPs.
func TestCoexistsWithReno(t *testing.T) {
	const warmup, measure = 10 * time.Second, 60 * time.Second
	for _, buffers := range []int64{1, 3} {
		p := path{rate: mbit(10), delay: 20 * time.Millisecond}
		p.queue = buffers * p.bdp()
		n := newNetwork(p, 10)
		bbrFlow, _ := n.addBBR(10)
		renoFlow := n.addFlow(newReno(simMSS))
		bbrFlow.unlimited, renoFlow.unlimited = true, true
		n.run(warmup)
		bbrBefore, renoBefore := bbrFlow.stats, renoFlow.stats
		n.run(measure)
		bbrShare := goodput(p, bbrBefore, bbrFlow.stats, measure)
		renoShare := goodput(p, renoBefore, renoFlow.stats, measure)
		bbrDelta, renoDelta := diffStats(bbrBefore, bbrFlow.stats), diffStats(renoBefore, renoFlow.stats)
		t.Logf("buffer %d BDP: BBR %.3f, NewReno %.3f of the link; queue delay %v; overflow drops BBR %d, NewReno %d",
			buffers, bbrShare, renoShare, renoDelta.meanQueueDelay().Round(time.Microsecond), bbrDelta.overflowDrops, renoDelta.overflowDrops)
		if renoShare < 1.0/3 {
			t.Errorf("buffer %d BDP: NewReno kept %.3f of the link, want at least a third", buffers, renoShare)
		}
		if bbrShare+renoShare < 0.9 {
			t.Errorf("buffer %d BDP: the two flows used %.3f of the link", buffers, bbrShare+renoShare)
		}
	}
}
