package bbr

import (
	"math"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

var _ congestion.ModelReporter = (*BBR)(nil)

// Model reports the model and the bounds on cwnd, for the connection's
// qlog: unset bounds (the draft's Infinity) are 0.
func (b *BBR) Model() congestion.Model {
	m := congestion.Model{
		State:            b.state.String(),
		InRecovery:       b.inRecovery,
		CongestionWindow: b.cwnd,
		PacingRate:       b.pacer.rateBytes(),
		MaxBandwidth:     toBytes(b.maxBw),
		Bandwidth:        toBytes(b.bw),
		ExtraAcked:       b.extraAcked,
		RandomLoss:       b.randomLoss,
		LossRoundMinRTT:  b.lastRound.minRTT,
		LossRoundLoss:    b.lastRound.lossRate(),
	}
	if !math.IsInf(b.bwShortterm, 1) {
		m.BandwidthShortterm = toBytes(b.bwShortterm)
	}
	if b.minRTT != noRTT {
		m.MinRTT = b.minRTT
	}
	if b.resume != nil {
		m.Resume = b.resume.String()
	}
	if b.inflightLongterm != infinite {
		m.InflightLongterm = b.inflightLongterm
	}
	if b.inflightShortterm != infinite {
		m.InflightShortterm = b.inflightShortterm
	}
	return m
}
