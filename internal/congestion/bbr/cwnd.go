package bbr

import "github.com/lastmile-edge/lastmile/internal/congestion"

// The congestion window (§5.6.4) and the ACK aggregation it allows for
// (§5.5.9).

// bdpMultiple is BDPMultiple: gain times the BDP at bw, or the initial
// window before any RTT sample.
func (b *BBR) bdpMultiple(bw, gain float64) int64 {
	if b.minRTT == noRTT {
		return b.initialCwnd
	}
	return toBytes(gain * bw * b.minRTT.Seconds())
}

// quantizationBudget is QuantizationBudget: room for the send quantum in
// flight (QUIC's BBR.offload_budget, §5.5.8.2), BBR.MinPipeCwnd, and two
// more packets while probing up.
func (b *BBR) quantizationBudget(inflightCap int64) int64 {
	inflightCap = max(inflightCap, b.pacer.quantum, b.minPipeCwnd())
	if b.state == probeBWUp {
		inflightCap += 2 * b.smss
	}
	return inflightCap
}

// inflightFor is Inflight(bw, gain).
func (b *BBR) inflightFor(bw, gain float64) int64 {
	return b.quantizationBudget(b.bdpMultiple(bw, gain))
}

// updateMaxInflight is UpdateMaxInflight, which also refreshes BBR.bdp.
func (b *BBR) updateMaxInflight() {
	b.bdp = b.bdpMultiple(b.bw, 1)
	inflightCap := b.bdpMultiple(b.bw, b.cwndGain) + b.extraAcked
	b.maxInflight = b.quantizationBudget(min(inflightCap, maxVolume))
}

// setCwnd is SetCwnd (§5.6.4.6): cwnd falls at once to max_inflight but
// grows by no more than what each ACK delivers; in Startup it grows
// unbounded until the model is worth trusting.
func (b *BBR) setCwnd() {
	b.updateMaxInflight()
	newlyAcked := b.rs.newlyAcked
	switch {
	case b.fullBwReached:
		b.cwnd = min(b.cwnd+newlyAcked, b.maxInflight)
	case b.cwnd < b.maxInflight || b.rate.delivered < b.initialCwnd:
		b.cwnd += newlyAcked
	}
	b.cwnd = min(max(b.cwnd, b.minPipeCwnd()), maxVolume)
	if b.state == probeRTT { // BoundCwndForProbeRTT (§5.6.4.5)
		b.cwnd = min(b.cwnd, b.probeRTTCwnd())
	}
	b.boundCwndForModel()
}

// boundCwndForModel is BoundCwndForModel (§5.6.4.7): the volume caps of
// the table in §5.6.1.
func (b *BBR) boundCwndForModel() {
	var inflightCap int64 = infinite
	switch {
	case b.isInProbeBWState() && b.state != probeBWCruise:
		inflightCap = b.inflightLongterm
	case b.state == probeRTT || b.state == probeBWCruise:
		inflightCap = b.inflightWithHeadroom()
	}
	inflightCap = max(min(inflightCap, b.inflightShortterm), b.minPipeCwnd())
	b.cwnd = min(b.cwnd, inflightCap)
}

// updateACKAggregation is UpdateACKAggregation (§5.5.9): how much more
// was acknowledged than bw explains, so cwnd lets the sender keep going
// through the silences of aggregated ACKs.
func (b *BBR) updateACKAggregation(now congestion.Time) {
	expected := toBytes(b.bw * now.Sub(b.extraAckedStart).Seconds())
	if b.extraAckedDelivered <= expected {
		// The ACK rate fell below bw: a new aggregation episode.
		b.extraAckedDelivered = 0
		b.extraAckedStart = now
		expected = 0
	}
	b.extraAckedDelivered = min(b.extraAckedDelivered+b.rs.newlyAcked, maxVolume)
	extra := min(b.extraAckedDelivered-expected, b.cwnd)
	var window uint64 = extraAckedFilterLen
	if !b.fullBwReached {
		window = 1 // in Startup, just remember one round
	}
	b.extraAcked = b.extraAckedFilter.update(extra, b.roundCount, window)
}
