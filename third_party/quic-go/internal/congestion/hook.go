package congestion

// lastmile patch: the application's congestion controller.
//
// An application installs a controller per connection by putting a Factory
// in the connection's context (Transport.ConnContext for a server, the
// context given to Dial for a client) under FactoryContextKey. The types
// below are aliases of unnamed types made of predeclared and standard-library
// types only: Go's type identity is structural for them, so an application
// spells the same types in its own package and needs no symbol of this
// patched tree. Built against upstream quic-go, the context value is simply
// never looked up.

import (
	"context"
	"time"

	"github.com/quic-go/quic-go/internal/monotime"
	"github.com/quic-go/quic-go/internal/protocol"
	"github.com/quic-go/quic-go/internal/utils"
	"github.com/quic-go/quic-go/qlog"
	"github.com/quic-go/quic-go/qlogwriter"
)

// FactoryContextKey is the context key of the application's Factory.
const FactoryContextKey = "github.com/quic-go/quic-go/congestion.Factory"

// HookPacket is a sent packet that counts toward bytes in flight. SentTime
// is a monotime.Time.
type HookPacket = struct{ Number, Bytes, SentTime int64 }

// HookAckEvent is one ACK frame's newly acknowledged and lost packets, or
// one firing of the loss-detection timer (Acked empty).
type HookAckEvent = struct {
	Now                          int64
	PriorInFlight, BytesInFlight int64
	// LargestAcked is the ACK frame's largest acknowledged packet number
	// (-1 for a loss-timer event).
	LargestAcked int64
	// RTTSampled reports whether the event took a new RTT sample.
	RTTSampled bool
	// Acked and Lost are in ascending packet-number order. Lost path MTU
	// probes are left out: they say nothing about congestion.
	Acked, Lost []HookPacket
	// ECNCE is how many more packets the peer reported CE-marked.
	ECNCE                          int64
	LatestRTT, SmoothedRTT, MinRTT time.Duration
}

// HookInfo is a controller's state, for the application's metrics.
type HookInfo = struct {
	CongestionWindow, PacingRate, BottleneckBandwidth int64
	MinRTT                                            time.Duration
	State                                             string
	InSlowStart, InRecovery                           bool
}

// HookController is the application's controller of one connection path.
// quic-go calls it from the connection's goroutine only.
type HookController = interface {
	OnPacketSent(now int64, p HookPacket, bytesInFlight int64, isRetransmittable bool)
	OnAck(HookAckEvent)
	OnRetransmissionTimeout(packetsRetransmitted bool)
	OnAppLimited(now, bytesInFlight int64)
	CanSend(bytesInFlight int64) bool
	HasPacingBudget(now int64) bool
	TimeUntilSend(bytesInFlight int64) int64
	SetMaxDatagramSize(bytes int64)
	Info() HookInfo
}

// HookSpuriousLossController is optional for a HookController: one that
// has this method is told when a packet it was told was lost is
// acknowledged after all, so it can undo its response to that loss.
// sentTime is the packet's send time, now the ACK's receive time less its
// ACK delay (monotime.Time both). A new interface rather than a method of
// HookController keeps the factory's type, and so applications built
// before it, unchanged.
type HookSpuriousLossController = interface {
	OnSpuriousLoss(now, packetNumber, sentTime int64)
}

// Factory makes the controller of a new connection, and again of each new
// path the connection migrates to. builtin makes quic-go's own sender
// (NewReno if reno, else CUBIC) as a HookController, so an application can
// choose it and still observe it. A nil result means quic-go's default
// (NewReno), not observed.
type Factory = func(initialMaxDatagramSize int64, now func() int64, builtin func(reno bool) HookController) HookController

// FactoryFromContext returns the application's Factory, or nil.
func FactoryFromContext(ctx context.Context) Factory {
	f, _ := ctx.Value(FactoryContextKey).(Factory)
	return f
}

// Hook adapts a HookController to the SendAlgorithm the sentPacketHandler
// drives. The sentPacketHandler reports acked and lost packets with their
// send times through PacketAcked, PacketLost and ECNCongestion, and closes
// each event with EndOfEvent, so the controller sees an ACK as a whole.
type Hook struct {
	c          HookController
	ev         HookAckEvent
	lastECNCE  int64 // the peer's cumulative CE count at the last ECNCongestion
	hasEvent   bool
	rttSampled bool
}

var _ SendAlgorithmWithDebugInfos = &Hook{}

// NewHook returns the Hook of the controller f makes, or nil if f is nil
// or makes none.
func NewHook(f Factory, rttStats *utils.RTTStats, initialMaxDatagramSize protocol.ByteCount, qlogger qlogwriter.Recorder) *Hook {
	if f == nil {
		return nil
	}
	builtin := func(reno bool) HookController {
		// The sentPacketHandler counts losses for hooked controllers.
		s := NewCubicSender(DefaultClock{}, rttStats, &utils.ConnectionStats{}, initialMaxDatagramSize, reno, qlogger)
		return builtinController{s}
	}
	c := f(int64(initialMaxDatagramSize), func() int64 { return int64(monotime.Now()) }, builtin)
	if c == nil {
		return nil
	}
	return &Hook{c: c}
}

// PacketAcked records a newly acknowledged packet of the current event.
func (h *Hook) PacketAcked(pn protocol.PacketNumber, bytes protocol.ByteCount, sentTime monotime.Time) {
	h.ev.Acked = append(h.ev.Acked, HookPacket{Number: int64(pn), Bytes: int64(bytes), SentTime: int64(sentTime)})
	h.hasEvent = true
}

// PacketLost records a packet of the current event declared lost.
func (h *Hook) PacketLost(pn protocol.PacketNumber, bytes protocol.ByteCount, sentTime monotime.Time) {
	h.ev.Lost = append(h.ev.Lost, HookPacket{Number: int64(pn), Bytes: int64(bytes), SentTime: int64(sentTime)})
	h.hasEvent = true
}

// ECNCongestion records that the current ACK raised the peer's cumulative
// CE count to ce.
func (h *Hook) ECNCongestion(ce int64) {
	h.ev.ECNCE += max(1, ce-h.lastECNCE)
	h.lastECNCE = max(h.lastECNCE, ce)
	h.hasEvent = true
}

// EndOfEvent hands the recorded event to the controller. largestAcked is
// the ACK frame's (-1 for a loss-timer event).
func (h *Hook) EndOfEvent(now monotime.Time, largestAcked protocol.PacketNumber, priorInFlight, bytesInFlight protocol.ByteCount, rtt *utils.RTTStats) {
	if !h.hasEvent {
		h.rttSampled = false
		return
	}
	h.ev.Now = int64(now)
	h.ev.LargestAcked = int64(largestAcked)
	h.ev.PriorInFlight, h.ev.BytesInFlight = int64(priorInFlight), int64(bytesInFlight)
	h.ev.RTTSampled = h.rttSampled
	h.ev.LatestRTT, h.ev.SmoothedRTT, h.ev.MinRTT = rtt.LatestRTT(), rtt.SmoothedRTT(), rtt.MinRTT()
	h.c.OnAck(h.ev)
	// The slices are reused: a controller must not keep them.
	h.ev = HookAckEvent{Acked: h.ev.Acked[:0], Lost: h.ev.Lost[:0]}
	h.hasEvent, h.rttSampled = false, false
}

// SpuriousLoss tells the controller, if it asks to be told, that packet pn,
// declared lost before, was acknowledged.
func (h *Hook) SpuriousLoss(now monotime.Time, pn protocol.PacketNumber, sentTime monotime.Time) {
	if c, ok := h.c.(HookSpuriousLossController); ok {
		c.OnSpuriousLoss(int64(now), int64(pn), int64(sentTime))
	}
}

// OnRetransmissionTimeout tells the controller a probe timeout fired.
func (h *Hook) OnRetransmissionTimeout(packetsRetransmitted bool) {
	h.c.OnRetransmissionTimeout(packetsRetransmitted)
}

// OnAppLimited tells the controller the sender had nothing to send.
func (h *Hook) OnAppLimited(now monotime.Time, bytesInFlight protocol.ByteCount) {
	h.c.OnAppLimited(int64(now), int64(bytesInFlight))
}

// MaybeExitSlowStart is called when the ACK took an RTT sample.
func (h *Hook) MaybeExitSlowStart() { h.rttSampled = true }

// OnPacketAcked and OnCongestionEvent lack the packet's send time: the
// sentPacketHandler calls PacketAcked, PacketLost and ECNCongestion on a
// Hook instead.
func (h *Hook) OnPacketAcked(protocol.PacketNumber, protocol.ByteCount, protocol.ByteCount, monotime.Time) {
	panic("congestion: a Hook takes acked packets through PacketAcked")
}

func (h *Hook) OnCongestionEvent(protocol.PacketNumber, protocol.ByteCount, protocol.ByteCount) {
	panic("congestion: a Hook takes losses through PacketLost and ECNCongestion")
}

func (h *Hook) OnPacketSent(sentTime monotime.Time, bytesInFlight protocol.ByteCount, pn protocol.PacketNumber, bytes protocol.ByteCount, isRetransmittable bool) {
	h.c.OnPacketSent(int64(sentTime), HookPacket{Number: int64(pn), Bytes: int64(bytes), SentTime: int64(sentTime)}, int64(bytesInFlight), isRetransmittable)
}

func (h *Hook) TimeUntilSend(bytesInFlight protocol.ByteCount) monotime.Time {
	return monotime.Time(h.c.TimeUntilSend(int64(bytesInFlight)))
}

func (h *Hook) HasPacingBudget(now monotime.Time) bool { return h.c.HasPacingBudget(int64(now)) }

func (h *Hook) CanSend(bytesInFlight protocol.ByteCount) bool {
	return h.c.CanSend(int64(bytesInFlight))
}

func (h *Hook) SetMaxDatagramSize(s protocol.ByteCount) { h.c.SetMaxDatagramSize(int64(s)) }

func (h *Hook) InSlowStart() bool { return h.c.Info().InSlowStart }

func (h *Hook) InRecovery() bool { return h.c.Info().InRecovery }

func (h *Hook) GetCongestionWindow() protocol.ByteCount {
	return protocol.ByteCount(h.c.Info().CongestionWindow)
}

// builtinController is quic-go's own sender as a HookController. OnAck
// replays an event in the order the sentPacketHandler drives the sender
// without a hook, so choosing it through the hook changes nothing.
type builtinController struct{ s *cubicSender }

func (b builtinController) OnPacketSent(now int64, p HookPacket, bytesInFlight int64, isRetransmittable bool) {
	b.s.OnPacketSent(monotime.Time(now), protocol.ByteCount(bytesInFlight), protocol.PacketNumber(p.Number), protocol.ByteCount(p.Bytes), isRetransmittable)
}

func (b builtinController) OnAck(ev HookAckEvent) {
	prior := protocol.ByteCount(ev.PriorInFlight)
	if ev.RTTSampled {
		b.s.MaybeExitSlowStart()
	}
	if ev.ECNCE > 0 {
		b.s.OnCongestionEvent(protocol.PacketNumber(ev.LargestAcked), 0, prior)
	}
	for _, p := range ev.Lost {
		b.s.OnCongestionEvent(protocol.PacketNumber(p.Number), protocol.ByteCount(p.Bytes), prior)
	}
	for _, p := range ev.Acked {
		b.s.OnPacketAcked(protocol.PacketNumber(p.Number), protocol.ByteCount(p.Bytes), prior, monotime.Time(ev.Now))
	}
}

// OnRetransmissionTimeout does nothing: without a hook, quic-go v0.63.0
// never calls its sender's.
func (b builtinController) OnRetransmissionTimeout(bool) {}

// OnAppLimited does nothing: the sender sees application limits in
// OnPacketAcked's priorInFlight.
func (b builtinController) OnAppLimited(int64, int64) {}

func (b builtinController) CanSend(bytesInFlight int64) bool {
	return b.s.CanSend(protocol.ByteCount(bytesInFlight))
}

func (b builtinController) HasPacingBudget(now int64) bool {
	return b.s.HasPacingBudget(monotime.Time(now))
}

func (b builtinController) TimeUntilSend(bytesInFlight int64) int64 {
	return int64(b.s.TimeUntilSend(protocol.ByteCount(bytesInFlight)))
}

func (b builtinController) SetMaxDatagramSize(s int64) { b.s.SetMaxDatagramSize(protocol.ByteCount(s)) }

func (b builtinController) Info() HookInfo {
	state := qlog.CongestionStateCongestionAvoidance
	switch {
	case b.s.InRecovery():
		state = qlog.CongestionStateRecovery
	case b.s.InSlowStart():
		state = qlog.CongestionStateSlowStart
	}
	return HookInfo{
		CongestionWindow: int64(b.s.GetCongestionWindow()),
		PacingRate:       int64(b.s.pacer.adjustedBandwidth()),
		MinRTT:           b.s.rttStats.MinRTT(),
		State:            state.String(),
		InSlowStart:      b.s.InSlowStart(),
		InRecovery:       b.s.InRecovery(),
	}
}
