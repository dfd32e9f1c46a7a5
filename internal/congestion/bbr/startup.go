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
// than 25%.
func (b *BBR) checkFullBwReached() {
	rs := &b.rs
	if b.fullBwNow || !b.roundStart || rs.isAppLimited {
		return
	}
	if rs.deliveryRate >= b.fullBw*fullBwGrowth {
		b.resetFullBw()
		b.fullBw = rs.deliveryRate
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
// been in recovery for a full round, the round lost more than
// BBR.LossThresh of its data, in at least six discontiguous ranges (QUIC
// acknowledges selectively, so it can see them all).
func (b *BBR) checkStartupHighLoss() {
	if !b.lossRoundStart {
		return
	}
	if b.state == startup && !b.fullBwReached && b.inRecovery &&
		b.roundCount > b.recoveryStartRound &&
		b.lossRangesInRound >= startupFullLossCount &&
		float64(b.lostInRound) > lossThresh*float64(b.lostInRound+b.deliveredInRound) {
		b.fullBwReached = true
		b.inflightLongterm = max(b.bdp, b.inflightLatest)
	}
	b.lossRangesInRound = 0
	b.lostInRound = 0
	b.deliveredInRound = 0
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
