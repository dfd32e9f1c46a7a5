package bbr

import "github.com/lastmile-edge/lastmile/internal/congestion"

// Startup and Drain (§5.3.1, §5.3.2).

// enterStartup is EnterStartup.
func (b *BBR) enterStartup() {
	b.state = startup
	b.pacingGain = startupPacingGain
	b.cwndGain = defaultCwndGain
}

// resetFullBw is ResetFullBW (§5.3.1.2).
func (b *BBR) resetFullBw() {
	b.fullBw = 0
	b.fullBwCount = 0
	b.fullBwNow = false
}

// checkFullBwReached is CheckFullBWReached (§5.3.1.2): the pipe is full
// after three non-app-limited rounds in which the delivery rate grew less
// than 25%. A round whose samples are app-limited counts too when a
// flight of it sent from idle filled the pipe (rate.go's rebase), by the
// fastest such sample: a kept connection's pages each start from idle, so
// every round of theirs is app-limited, and Startup would otherwise never
// end on a path where each page overfills the queue at Startup's pace
// (lte-india-congested: 5.6 packets per page dropped by the lab's queue).
// A page smaller than the BDP fills no pipe and still never ends Startup,
// as the draft intends: its samples cannot show the bottleneck's rate.
func (b *BBR) checkFullBwReached() {
	rs := &b.rs
	if rs.filledPipe {
		b.pipeBw = max(b.pipeBw, rs.deliveryRate)
	}
	if !b.roundStart {
		return
	}
	rate := rs.deliveryRate
	if rs.isAppLimited {
		rate = b.pipeBw // 0: no sample of the round can tell
	}
	b.pipeBw = 0
	if b.fullBwNow || rate == 0 && rs.isAppLimited {
		return
	}
	if rate >= b.fullBw*fullBwGrowth {
		b.resetFullBw()
		b.fullBw = rate
		return
	}
	b.fullBwCount++
	b.fullBwNow = b.fullBwCount >= fullBwRounds
	if b.fullBwNow {
		b.fullBwReached = true
	}
}

// checkStartupDone is CheckStartupDone (§5.3.1).
func (b *BBR) checkStartupDone() {
	b.checkStartupHighLoss()
	if b.state == startup && b.fullBwReached {
		b.enterDrain()
	}
}

// checkStartupHighLoss is CheckStartupHighLoss (§5.3.1.3), judged at the
// end of each loss round: Startup ends on loss once the connection has
// been in loss recovery for a full round trip and lost more than the loss
// threshold, in at least six discontiguous ranges (QUIC acknowledges
// selectively, so it sees them all). The draft's recovery is TCP's, which
// lasts until all that was outstanding at the first loss is acknowledged,
// so it outlasts a round while losses go on. QUIC's recovery period (RFC
// 9002 §7.3.2) ends at the first ACK of a packet sent after it began,
// which also ends the loss round begun by the same loss: at a loss
// round's end the connection is out of recovery unless that ACK declared a
// new loss, and asking for recovery still under way then held only when
// the same ACK also began a packet-timed round. In the lab's fairness run
// (beside TCP CUBIC in a one-BDP drop-tail queue) Startup so went on for
// up to 8 s through rounds that lost 7-18% of their data in 8-22 ranges
// behind a standing queue, the plateau blocked too (its round-start
// samples app-limited); where it lasted 2 s or more, CUBIC kept 0.09-0.36
// of the link (docs/results/quic-transfer.md). So here a full round trip
// of recovery is startupFullLossRounds loss rounds in a row that meet the
// criteria: the round the loss began, and one more that shows the losses
// went on. The draft wants these criteria to show the bottleneck "fully
// utilized on a sustained basis"; on a radio link random losses meet them
// within a few rounds, long before the pipe is full, so each round must
// also have kept a standing queue, which is what a full bottleneck shows.
// A single round is not enough: on the simulator's lte-india kept pages,
// Startup's own queue and the path's random loss meet the criteria in
// single rounds, and ending Startup there paced the next pages at 0.8 of
// the link (TestKeptPagesSmallerThanBDPStayInStartup). The bandwidth
// plateau still ends Startup where the queue is too shallow to see.
func (b *BBR) checkStartupHighLoss() {
	r := &b.lastRound
	if !b.lossRoundStart || b.state != startup || b.fullBwReached {
		return
	}
	if r.lostRanges < startupFullLossCount || r.lossRate() <= b.lossThreshold(r.lost+r.delivered) ||
		!r.queued(b.minRTT) {
		b.startupLossRounds = 0
		return
	}
	b.startupLossRounds++
	if b.startupLossRounds >= startupFullLossRounds {
		b.fullBwReached = true
		b.inflightLongterm = max(b.bdp, b.inflightLatest)
	}
}

// enterDrain is EnterDrain (§5.3.2).
func (b *BBR) enterDrain() {
	b.state = drain
	b.pacingGain = drainPacingGain
	b.cwndGain = defaultCwndGain
	b.drainStartRound = b.roundCount
}

// checkDrainDone is CheckDrainDone (§5.3.2): the queue Startup built is
// gone once inflight is at most the BDP, or after three rounds.
func (b *BBR) checkDrainDone(now congestion.Time) {
	if b.state == drain &&
		(b.inflight <= b.inflightFor(b.bw, 1) || b.roundCount > b.drainStartRound+drainMaxRounds) {
		b.enterProbeBW(now)
	}
}
