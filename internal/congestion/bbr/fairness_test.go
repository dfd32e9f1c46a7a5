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

// Two BBR flows through one bottleneck share it about evenly, with and
// without random loss.
func TestTwoBBRFlowsShare(t *testing.T) {
	for _, loss := range []float64{0, 0.02} {
		p := path{rate: mbit(10), delay: 20 * time.Millisecond, loss: loss}
		n := newNetwork(p, 12)
		a, _ := n.addBBR(12)
		b, _ := n.addBBR(13)
		a.unlimited, b.unlimited = true, true
		n.run(10 * time.Second)
		aBefore, bBefore := a.stats, b.stats
		n.run(60 * time.Second)
		aShare, bShare := goodput(p, aBefore, a.stats, 60*time.Second), goodput(p, bBefore, b.stats, 60*time.Second)
		t.Logf("%.0f%% random loss: shares %.3f and %.3f; queue delay %v", 100*loss, aShare, bShare, diffStats(aBefore, a.stats).meanQueueDelay().Round(time.Microsecond))
		if min(aShare, bShare) < 0.4 || aShare+bShare < 0.9 {
			t.Errorf("%.0f%% random loss: shares %.3f and %.3f, want at least 0.4 each and 0.9 together", 100*loss, aShare, bShare)
		}
	}
}
