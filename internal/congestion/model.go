package congestion

import "time"

// Model is a model-based controller's state in full: what Info reports,
// plus the bounds that explain its window. The edge writes it into the
// connection's qlog when it changes (quichook), so a trace shows why the
// window is what it is. Volumes are bytes, rates bytes per second; a zero
// bound is unset.
type Model struct {
	State      string // e.g. "probe_bw_down"
	InRecovery bool
	// CongestionWindow and PacingRate are the control parameters.
	CongestionWindow, PacingRate int64
	// MaxBandwidth is BBR.max_bw; Bandwidth BBR.bw, the rate the model
	// uses (max_bw bounded by BandwidthShortterm, BBR.bw_shortterm or
	// bw_lo).
	MaxBandwidth, Bandwidth, BandwidthShortterm int64
	MinRTT                                      time.Duration
	// InflightLongterm and InflightShortterm are BBR.inflight_longterm
	// (inflight_hi) and BBR.inflight_shortterm (inflight_lo).
	InflightLongterm, InflightShortterm int64
	// ExtraAcked is the ACK aggregation cwnd allows for (BBR.extra_acked).
	ExtraAcked int64
	// RandomLoss is the loss rate the controller attributes to the path
	// rather than to a queue (lastmile's BBR; 0 for others).
	RandomLoss float64
	// LossRoundMinRTT and LossRoundLoss are the least RTT sample and the
	// loss rate of the last loss round (lastmile's BBR judges a round's
	// loss by them; 0 for others).
	LossRoundMinRTT time.Duration
	LossRoundLoss   float64
	// Resume is a resuming connection's Careful Resume phase, then its
	// outcome ("" for a connection that does not resume).
	Resume string
}

// ModelReporter is optional for a Controller: one that has it reports its
// Model; others are traced from their Info.
type ModelReporter interface {
	Model() Model
}
