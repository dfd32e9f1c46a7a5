// Package congestion is the edge's side of QUIC congestion control: what a
// controller is told about a connection's packets, and what it decides.
// quic-go v0.63.0 hard-codes its own NewReno/CUBIC sender; lastmile's patch
// of it (third_party/quic-go) lets the quic app install a Controller per
// connection. The types here use only the standard library, so controllers
// are tested without quic-go and the package builds against upstream too.
package congestion

import "time"

// Time is a monotonic instant in nanoseconds since an arbitrary epoch (the
// sender's clock; quic-go's monotime).
type Time int64

// Add returns t+d.
func (t Time) Add(d time.Duration) Time { return t + Time(d) }

// Sub returns t-u.
func (t Time) Sub(u Time) time.Duration { return time.Duration(t - u) }

// Packet is a sent packet that counts toward bytes in flight.
type Packet struct {
	Number   int64
	Bytes    int64
	SentTime Time
}

// RTTStats are the connection's round-trip estimates at an event.
type RTTStats struct {
	Latest, Smoothed, Min time.Duration
}

// AckEvent is one batch of newly acknowledged and newly lost packets: one
// ACK frame, or one firing of the loss-detection timer (Acked empty).
type AckEvent struct {
	Now Time
	// PriorInFlight is the bytes in flight before the event; BytesInFlight
	// after it.
	PriorInFlight, BytesInFlight int64
	// Acked and Lost are in ascending packet-number order.
	Acked, Lost []Packet
	// ECNCE is how many more packets the peer reported CE-marked.
	ECNCE int64
	RTT   RTTStats
}

// Info is what a controller reports about its state, for metrics and the
// admin view.
type Info struct {
	CongestionWindow int64 // bytes
	PacingRate       int64 // bytes per second; 0 when not pacing
	// BottleneckBandwidth (bytes per second) and MinRTT are the model's
	// estimates; zero for controllers without a model.
	BottleneckBandwidth int64
	MinRTT              time.Duration
	State               string // e.g. "startup", "probe_bw_cruise", "slow_start"
	InSlowStart         bool
	InRecovery          bool
}

// Controller decides how much a connection may have in flight and when its
// next packet may leave. A Controller serves one connection path and is
// called from that connection's goroutine only.
type Controller interface {
	// OnPacketSent is called for every packet sent, ack-eliciting or not
	// (isRetransmittable); bytesInFlight includes it when it counts.
	OnPacketSent(now Time, p Packet, bytesInFlight int64, isRetransmittable bool)
	// OnAck reports newly acknowledged and lost packets together.
	OnAck(ev AckEvent)
	// OnRetransmissionTimeout is called when a probe timeout fires.
	OnRetransmissionTimeout(packetsRetransmitted bool)
	// OnAppLimited is called when the sender had nothing to send although
	// the window and pacing allowed more.
	OnAppLimited(now Time, bytesInFlight int64)
	// CanSend reports whether the window allows another packet.
	CanSend(bytesInFlight int64) bool
	// HasPacingBudget reports whether pacing allows a packet now.
	HasPacingBudget(now Time) bool
	// TimeUntilSend is the earliest instant the next packet may leave (0:
	// now).
	TimeUntilSend(bytesInFlight int64) Time
	// SetMaxDatagramSize is called when path MTU discovery changes it.
	SetMaxDatagramSize(bytes int64)
	// Info reports the current state.
	Info() Info
}

// SpuriousLossController is optional for a Controller: one that has this
// method is told when a packet it was told was lost is acknowledged after
// all (the loss was spurious), so it can undo its response to that loss.
// now is the ACK's receive time less its ACK delay.
type SpuriousLossController interface {
	OnSpuriousLoss(now Time, packetNumber int64, sentTime Time)
}

// Conn is what a Factory knows about the connection it serves.
type Conn struct {
	InitialMaxDatagramSize int64
	// Now is the sender's clock, for controllers that need time outside
	// events.
	Now func() Time
}

// Factory makes the Controller for a new connection, or for a path whose
// state quic-go resets (migration).
type Factory func(Conn) Controller
