package bbr

import "time"

// Jitter. lastmile's BBR reads a round's loss as congestion when even the
// round's fastest packet waited in a queue (lossRound.queued): another
// flow's standing queue, which BBR must yield to as the draft does. On a
// path with jitter, min_rtt is the least sample of the last 10 s, the
// luckiest packet of thousands, while a round of a few dozen packets (a
// page's last flights on a kept connection, a few) has its least sample
// anywhere in the jitter's spread. On the lab's wifi-last-meters (10 ms RTT
// with 5 ms of jitter each way) min_rtt settles near 6-7 ms and most rounds'
// fastest packets exceed it by more than the 2 ms once allowed, so nearly
// every round with a random loss counted as queued, and the loss as
// congestion: each cut the short-term model to the round's delivery
// (inflight_shortterm to at most 0.7 of itself), small at a page's end, and a
// kept connection carried the cuts from page to page until the next
// bandwidth probe (docs/results/quic-cc.md). Queued rounds also do not
// count toward the path's random loss, so the loss threshold stayed at the
// draft's 2% and probes were cut too.
//
// A standing queue delays every packet of a round alike; jitter spreads
// them. So the spread of a round's RTT samples (its slowest less its
// fastest) measures the jitter whatever the queue, and a round's fastest
// packet counts as queued only when it exceeds min_rtt by more than that
// spread as well. The estimate is a moving average (gain 1/8, the first
// round taken as it is) of rounds that cannot have built a queue within
// themselves: once the pipe was first full (fullBwReached), outside Drain
// and bandwidth probes, with at least randomLossMinPackets acknowledged,
// and not queued by the estimate so far; a round's spread counts for at
// most twice the estimate, so a queue filling within a round (the path's
// rate falling under the flow) does not inflate it: with those, the model
// no longer followed a fall of wifi-bursty's rate from 50 to 20 Mbit/s
// within a second (TestQueueCutsModelOnBurstyPath). On a path without
// jitter the estimate stays near zero and nothing changes; on a jittery
// one a queue shorter than the jitter's spread goes unseen, as it cannot
// be told from jitter.

// noteRTT records an RTT sample of the round.
func (r *lossRound) noteRTT(rtt time.Duration) {
	if r.minRTT == 0 || rtt < r.minRTT {
		r.minRTT = rtt
	}
	r.maxRTT = max(r.maxRTT, rtt)
}

// updateJitter folds the RTT spread of the round that just ended into
// BBR's estimate of the path's jitter.
func (b *BBR) updateJitter(r *lossRound) {
	if b.isProbingBw() || !b.fullBwReached || b.state == drain ||
		r.ackedPackets < randomLossMinPackets || r.minRTT == 0 {
		return
	}
	spread := r.maxRTT - r.minRTT
	if b.rttJitter == 0 {
		b.rttJitter = spread
		return
	}
	if r.queued(b.minRTT) {
		return
	}
	spread = min(spread, 2*b.rttJitter)
	b.rttJitter += (spread - b.rttJitter) / 8
}
