package bbr

import (
	"math"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// The response to loss and ECN (§5.5.10), and loss recovery (§5.6.4.4).
// Spurious-loss undo (§5.5.11) is not here: the controller interface
// reports no spurious losses, so there is nothing to undo from.

// onLost is the per-loss step (§5.2.4) for one packet declared lost.
func (b *BBR) onLost(now congestion.Time, p congestion.Packet) {
	if !b.inRecovery && p.Number > b.recoveryEnd {
		b.saveCwnd() // OnEnterFastRecovery
		b.inRecovery = true
		b.recoveryEnd = b.largestSent
		b.recoveryStartRound = b.roundCount
	}
	if p.Number != b.lastLostNumber+1 {
		b.lossRangesInRound++
	}
	b.lastLostNumber = p.Number
	b.lostInRound += p.Bytes
	b.rs.newlyLost += p.Bytes
	sent, known := b.rate.onLost(p.Number, p.Bytes)
	b.noteLoss()
	if !known || !b.isBwProbeSample {
		return // not a packet sent while probing bandwidth
	}
	// HandleLostPacket: judge the loss rate since this packet was sent.
	ls := rateSample{
		txInFlight:   sent.txInFlight,
		lost:         b.rate.lost - sent.lost,
		isAppLimited: sent.appLimited,
	}
	if b.isInflightTooHigh(&ls) {
		ls.txInFlight = b.inflightAtLoss(sent, &ls)
		b.handleInflightTooHigh(now, &ls)
	}
}

// noteLoss is NoteLoss: the first loss of a round starts a loss round.
func (b *BBR) noteLoss() {
	if !b.isLossInRound {
		b.lossRoundDelivered = b.rate.delivered
		b.saveCwnd() // SaveStateUponLoss
	}
	b.isLossInRound = true
}

// isInflightTooHigh is IsInflightTooHigh: more than BBR.LossThresh of
// what was in flight was lost. QUIC acknowledges selectively, so a single
// loss is not a signal on its own.
func (b *BBR) isInflightTooHigh(rs *rateSample) bool {
	return float64(rs.lost) > float64(rs.txInFlight)*lossThresh
}

// inflightAtLoss is InflightAtLoss: the inflight at which the loss rate
// crossed BBR.LossThresh, which may lie inside the lost packet.
func (b *BBR) inflightAtLoss(p sentPacket, rs *rateSample) int64 {
	inflightPrev := rs.txInFlight - p.size
	lostPrev := rs.lost - p.size
	lostPrefix := (lossThresh*float64(inflightPrev) - float64(lostPrev)) / (1 - lossThresh)
	return toBytes(float64(inflightPrev) + lostPrefix)
}

// handleInflightTooHigh is HandleInflightTooHigh: a bandwidth probe found
// the loss rate too high, so inflight_longterm falls to what was in flight,
// by no more than CUBIC's 0.7, and UP gives way to DOWN.
func (b *BBR) handleInflightTooHigh(now congestion.Time, rs *rateSample) {
	b.prevProbeTooHigh = true
	b.isBwProbeSample = false // react once per probe
	if !rs.isAppLimited {
		b.inflightLongterm = max(rs.txInFlight, toBytes(float64(b.targetInflight())*beta))
	}
	if b.state == probeBWUp {
		b.startProbeBWDown(now)
	}
}

// updateLatestDeliverySignals is UpdateLatestDeliverySignals.
func (b *BBR) updateLatestDeliverySignals() {
	b.lossRoundStart = false
	rs := &b.rs
	if !rs.hasData {
		return
	}
	b.bwLatest = max(b.bwLatest, rs.deliveryRate)
	b.inflightLatest = max(b.inflightLatest, rs.delivered)
	if rs.priorDelivered >= b.lossRoundDelivered {
		b.lossRoundDelivered = b.rate.delivered
		b.lossRoundStart = true
	}
}

// advanceLatestDeliverySignals is AdvanceLatestDeliverySignals.
func (b *BBR) advanceLatestDeliverySignals() {
	if b.lossRoundStart {
		b.bwLatest = b.rs.deliveryRate
		b.inflightLatest = b.rs.delivered
	}
}

// resetCongestionSignals is ResetCongestionSignals.
func (b *BBR) resetCongestionSignals() {
	b.isLossInRound = false
	b.ecnInRound = false
	b.bwLatest = 0
	b.inflightLatest = 0
}

// updateCongestionSignals is UpdateCongestionSignals: the bandwidth
// filter on every ACK, the short-term model once per loss round.
func (b *BBR) updateCongestionSignals(now congestion.Time) {
	b.updateMaxBw()
	if !b.lossRoundStart {
		return
	}
	b.updateECN(now)
	b.adaptLowerBoundsFromCongestion()
	b.isLossInRound = false
	b.ecnInRound = false
}

// updateECN closes a round's ECN account: it updates the CE-marked share's
// moving average (ecnAlpha) and, while probing bandwidth, ends the probe
// as too high when more than ecnThresh of the round came back CE-marked.
func (b *BBR) updateECN(now congestion.Time) {
	if b.ackedPacketsInRound == 0 {
		return
	}
	ratio := min(float64(b.cePacketsInRound)/float64(b.ackedPacketsInRound), 1)
	b.ecnAlpha += ecnAlphaGain * (ratio - b.ecnAlpha)
	b.cePacketsInRound, b.ackedPacketsInRound = 0, 0
	if b.isBwProbeSample && ratio > ecnThresh {
		b.handleInflightTooHigh(now, &b.rs)
	}
}

// adaptLowerBoundsFromCongestion is AdaptLowerBoundsFromCongestion: outside
// bandwidth probes, a round with loss or CE marks lowers the short-term
// model toward the latest delivery process.
func (b *BBR) adaptLowerBoundsFromCongestion() {
	if b.isProbingBw() || (!b.isLossInRound && !b.ecnInRound) {
		return
	}
	b.initLowerBounds()
	if b.isLossInRound {
		b.bwShortterm = max(b.bwLatest, beta*b.bwShortterm)
		b.inflightShortterm = max(b.inflightLatest, toBytes(beta*float64(b.inflightShortterm)))
	}
	if b.ecnInRound && b.ecnAlpha > 0 {
		// CE marks say the queue is above the marking threshold now, so the
		// delivery rate is no floor here, unlike for loss.
		cut := 1 - ecnFactor*b.ecnAlpha
		b.bwShortterm *= cut
		b.inflightShortterm = max(toBytes(cut*float64(b.inflightShortterm)), b.minPipeCwnd())
	}
}

// initLowerBounds is InitLowerBounds.
func (b *BBR) initLowerBounds() {
	if math.IsInf(b.bwShortterm, 1) {
		b.bwShortterm = b.maxBw
	}
	if b.inflightShortterm == infinite {
		b.inflightShortterm = b.cwnd
	}
}

// resetShortTermModel is ResetShortTermModel.
func (b *BBR) resetShortTermModel() {
	b.bwShortterm = math.Inf(1)
	b.inflightShortterm = infinite
}

// saveCwnd is SaveCwnd (§5.6.4.4): remember the last cwnd not reduced by
// recovery or ProbeRTT.
func (b *BBR) saveCwnd() {
	if !b.inRecovery && b.state != probeRTT {
		b.priorCwnd = b.cwnd
	} else {
		b.priorCwnd = max(b.priorCwnd, b.cwnd)
	}
}

// restoreCwnd is RestoreCwnd.
func (b *BBR) restoreCwnd() {
	b.cwnd = max(b.cwnd, b.priorCwnd)
}

// exitRecovery ends loss recovery, restoring the cwnd it started with;
// the model then bounds it (§5.6.4.4).
func (b *BBR) exitRecovery() {
	b.inRecovery = false
	b.restoreCwnd()
}
