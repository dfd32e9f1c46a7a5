package bbr

import "github.com/lastmile-edge/lastmile/internal/congestion"

// reno is a NewReno sender like quic-go's default (RFC 9002 §7.3: slow
// start, one multiplicative decrease of 0.7 per recovery period, one
// packet of growth per round trip after), unpaced: the reference the
// tests contrast BBR with.
type reno struct {
	smss, cwnd, ssthresh int64
	largestSent          int64
	recoveryEnd          int64 // largest packet sent when recovery began
	ackedInAvoidance     int64
}

var _ congestion.Controller = (*reno)(nil)

func newReno(smss int64) *reno {
	return &reno{smss: smss, cwnd: initialCwndPackets * smss, ssthresh: infinite, recoveryEnd: -1}
}

func (r *reno) OnPacketSent(_ congestion.Time, p congestion.Packet, _ int64, _ bool) {
	r.largestSent = max(r.largestSent, p.Number)
}

func (r *reno) OnAck(ev congestion.AckEvent) {
	for _, p := range ev.Lost {
		if p.Number > r.recoveryEnd {
			r.recoveryEnd = r.largestSent
			r.cwnd = max(r.cwnd*7/10, 2*r.smss)
			r.ssthresh = r.cwnd
		}
	}
	for _, p := range ev.Acked {
		if p.Number <= r.recoveryEnd {
			continue // no growth in recovery
		}
		if r.cwnd < r.ssthresh {
			r.cwnd += p.Bytes
			continue
		}
		r.ackedInAvoidance += p.Bytes
		if r.ackedInAvoidance >= r.cwnd {
			r.ackedInAvoidance -= r.cwnd
			r.cwnd += r.smss
		}
	}
}

func (r *reno) OnRetransmissionTimeout(bool)         {}
func (r *reno) OnAppLimited(congestion.Time, int64)  {}
func (r *reno) CanSend(bytesInFlight int64) bool     { return bytesInFlight < r.cwnd }
func (r *reno) HasPacingBudget(congestion.Time) bool { return true }
func (r *reno) TimeUntilSend(int64) congestion.Time  { return 0 }
func (r *reno) SetMaxDatagramSize(int64)             {}
func (r *reno) Info() congestion.Info                { return congestion.Info{CongestionWindow: r.cwnd} }
