package bbr

// Packet-timed round trips (§5.5.1) and the bandwidth model they clock
// (§5.5.2-§5.5.6).

// updateRound is UpdateRound: a round ends when a packet sent after the
// round began is acknowledged.
func (b *BBR) updateRound() {
	b.roundStart = false
	if !b.rs.hasData || b.rs.priorDelivered < b.nextRoundDelivered {
		return
	}
	b.startRound()
	b.roundCount++
	b.roundsSinceProbeUp++
	b.roundStart = true
	b.cwndLimitedLastRound = b.cwndLimitedThisRound
	b.cwndLimitedThisRound = false
}

// startRound is StartRound: the next round ends once what is delivered
// now, plus one packet, is acknowledged.
func (b *BBR) startRound() {
	b.nextRoundDelivered = b.rate.delivered
}

// isCwndLimited is C.is_cwnd_limited.
func (b *BBR) isCwndLimited() bool {
	return b.cwndLimitedThisRound || b.cwndLimitedLastRound
}

// updateMaxBw is UpdateMaxBw (§5.5.5): app-limited samples count only
// when they raise the estimate (§5.5.4), so a quiet application never
// lowers it.
func (b *BBR) updateMaxBw() {
	b.updateRound()
	rs := &b.rs
	if rs.deliveryRate > 0 && (rs.deliveryRate >= b.maxBw || !rs.isAppLimited) {
		b.maxBwFilter.update(rs.deliveryRate)
		b.maxBw = b.maxBwFilter.best()
	}
}

// advanceMaxBwFilter is AdvanceMaxBwFilter (§5.5.6).
func (b *BBR) advanceMaxBwFilter() {
	b.maxBwFilter.advance()
	b.maxBw = b.maxBwFilter.best()
}

// boundBwForModel is BoundBWForModel (§5.5.10.3).
func (b *BBR) boundBwForModel() {
	b.bw = min(b.maxBw, b.bwShortterm)
}
