package bbr

import (
	"time"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// ProbeBW: DOWN, CRUISE, REFILL and UP (§5.3.3, algorithm in §5.3.3.9).

// enterProbeBW is EnterProbeBW.
func (b *BBR) enterProbeBW(now congestion.Time) {
	b.cwndGain = defaultCwndGain
	b.startProbeBWDown(now)
}

func (b *BBR) startProbeBWDown(now congestion.Time) {
	b.resetCongestionSignals()
	b.probeUpAckedPerInc = infinite // not growing inflight_longterm
	b.pickProbeWait()
	b.cycleStamp = now
	b.ackPhase = acksProbeStopping
	b.startRound()
	b.state = probeBWDown
	b.pacingGain = probeDownPacingGain
	b.cwndGain = defaultCwndGain
}

func (b *BBR) startProbeBWCruise() {
	b.state = probeBWCruise
	b.pacingGain = 1
	b.cwndGain = defaultCwndGain
}

func (b *BBR) startProbeBWRefill() {
	b.resetShortTermModel()
	b.bwProbeUpRounds = 0
	b.bwProbeUpAcked = 0
	b.prevProbePrecautionary = false
	b.ackPhase = acksRefilling
	b.startRound()
	b.state = probeBWRefill
	b.pacingGain = 1
	b.cwndGain = defaultCwndGain
}

func (b *BBR) startProbeBWUp() {
	b.ackPhase = acksProbeStarting
	b.startRound()
	b.resetFullBw()
	b.fullBw = b.rs.deliveryRate
	b.state = probeBWUp
	b.pacingGain = probeUpPacingGain
	b.cwndGain = probeUpCwndGain
	b.raiseInflightLongtermSlope()
}

// updateProbeBWCyclePhase is UpdateProbeBWCyclePhase, run on each ACK.
func (b *BBR) updateProbeBWCyclePhase(now congestion.Time) {
	if !b.fullBwReached {
		return // Startup and Drain are handled elsewhere
	}
	if b.adaptLongTermModel() || !b.isInProbeBWState() {
		return
	}
	switch b.state {
	case probeBWDown:
		if b.isTimeToProbeBW(now) {
			return
		}
		if b.isTimeToCruise() {
			b.startProbeBWCruise()
		}
	case probeBWCruise:
		b.isTimeToProbeBW(now)
	case probeBWRefill:
		// After one round of REFILL, probe.
		if b.roundStart {
			b.isBwProbeSample = true
			b.startProbeBWUp()
		}
	case probeBWUp:
		if b.isTimeToGoDown() {
			b.prevProbeTooHigh = false // no high loss (yet)
			b.startProbeBWDown(now)
		}
	}
}

func (b *BBR) isInProbeBWState() bool {
	return b.state >= probeBWDown && b.state <= probeBWUp
}

// isProbingBw is IsProbingBW: the accelerating states.
func (b *BBR) isProbingBw() bool {
	return b.state == startup || b.state == probeBWRefill || b.state == probeBWUp
}

// isTimeToCruise: DOWN ends once inflight leaves headroom below
// inflight_longterm and is no more than the BDP.
func (b *BBR) isTimeToCruise() bool {
	if b.inflight > b.inflightWithHeadroom() {
		return false
	}
	return b.inflight <= b.inflightFor(b.maxBw, 1)
}

// isTimeToGoDown: UP ends at a bandwidth plateau, or at once on a
// precautionary probe that reached the level that was too high last time.
func (b *BBR) isTimeToGoDown() bool {
	if b.prevProbeTooHigh && b.inflight >= b.inflightLongterm {
		b.prevProbePrecautionary = true
		return true
	}
	if b.isCwndLimited() && b.cwnd >= b.inflightLongterm {
		// inflight_longterm, not the path, limits bw: keep probing.
		b.resetFullBw()
		b.fullBw = b.rs.deliveryRate
	} else if b.fullBwNow {
		return true
	}
	return false
}

// inflightWithHeadroom is InflightWithHeadroom: inflight_longterm less
// BBR.Headroom of it, left free for other flows.
func (b *BBR) inflightWithHeadroom() int64 {
	if b.inflightLongterm == infinite {
		return infinite
	}
	room := max(b.smss, toBytes(headroom*float64(b.inflightLongterm)))
	return max(b.inflightLongterm-room, b.minPipeCwnd())
}

// raiseInflightLongtermSlope is RaiseInflightLongtermSlope: in each round
// of UP, inflight_longterm grows by twice as many packets as in the last.
func (b *BBR) raiseInflightLongtermSlope() {
	growth := int64(1) << b.bwProbeUpRounds
	b.bwProbeUpRounds = min(b.bwProbeUpRounds+1, maxProbeUpRounds)
	b.probeUpAckedPerInc = max(b.cwnd/growth, b.smss)
}

// probeInflightLongtermUpward is ProbeInflightLongtermUpward.
func (b *BBR) probeInflightLongtermUpward() {
	if !b.isCwndLimited() || b.cwnd < b.inflightLongterm {
		return // not using all of inflight_longterm: don't grow it
	}
	b.bwProbeUpAcked += b.rs.newlyAcked
	if b.bwProbeUpAcked >= b.probeUpAckedPerInc {
		delta := b.bwProbeUpAcked / b.probeUpAckedPerInc
		b.bwProbeUpAcked -= delta * b.probeUpAckedPerInc
		b.inflightLongterm = min(b.inflightLongterm+delta*b.smss, maxVolume)
	}
	if b.roundStart {
		b.raiseInflightLongtermSlope()
	}
}

// adaptLongTermModel is AdaptLongTermModel: it follows the ACK phase,
// advances the max_bw filter one round after a probe, and raises the
// upper bounds while the loss rate is safe. It reports whether it decided
// a state transition.
func (b *BBR) adaptLongTermModel() bool {
	if b.ackPhase == acksProbeStarting && b.roundStart {
		b.ackPhase = acksProbeFeedback // samples of the probe arrive
	}
	if b.ackPhase == acksProbeStopping && b.roundStart {
		// The probe's samples are all in.
		b.isBwProbeSample = false
		b.ackPhase = acksInit
		if b.isInProbeBWState() && !b.rs.isAppLimited {
			b.advanceMaxBwFilter()
		}
		// Precautionary probing worked: probe again, fully (§5.3.3.6).
		if b.isInProbeBWState() && b.prevProbePrecautionary && !b.prevProbeTooHigh {
			b.startProbeBWRefill()
			return true
		}
	}
	if b.isInflightTooHigh(&b.rs) || b.inflightLongterm == infinite {
		return false
	}
	if b.rs.txInFlight > b.inflightLongterm {
		b.inflightLongterm = b.rs.txInFlight
	}
	if b.state == probeBWUp {
		b.probeInflightLongtermUpward()
	}
	return false
}

// isTimeToProbeBW is IsTimeToProbeBW: DOWN or CRUISE moves to REFILL after
// the randomised wall-clock wait, or after as many rounds as a Reno flow
// would need to refill the BDP, whichever is first (§5.3.3.8).
func (b *BBR) isTimeToProbeBW(now congestion.Time) bool {
	if now.Sub(b.cycleStamp) > b.bwProbeWait || b.isRenoCoexistenceProbeTime() {
		b.startProbeBWRefill()
		return true
	}
	return false
}

// pickProbeWait is PickProbeWait.
func (b *BBR) pickProbeWait() {
	b.roundsSinceProbeUp = b.rng.Uint64N(2)
	b.bwProbeWait = probeWaitBase + time.Duration(b.rng.Int64N(int64(probeWaitJitter)))
}

// isRenoCoexistenceProbeTime is IsRenoCoexistenceProbeTime; the draft's
// TargetInflight() is a volume and its bound a count of round trips, so
// it is taken here in packets.
func (b *BBR) isRenoCoexistenceProbeTime() bool {
	renoRounds := uint64(b.targetInflight() / b.smss)
	return b.roundsSinceProbeUp >= min(renoRounds, renoRoundsBound)
}

// targetInflight is TargetInflight: the BDP, unless congestion cut cwnd.
func (b *BBR) targetInflight() int64 {
	return min(b.bdp, b.cwnd)
}
