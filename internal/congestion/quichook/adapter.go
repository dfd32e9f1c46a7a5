package quichook

import "github.com/lastmile-edge/lastmile/internal/congestion"

// adapter presents a congestion.Controller to quic-go.
type adapter struct {
	c congestion.Controller
	// acked and lost are reused from event to event: a controller reads
	// an event's packets during OnAck only.
	acked, lost []congestion.Packet
}

func (a *adapter) OnPacketSent(now int64, p wirePacket, bytesInFlight int64, isRetransmittable bool) {
	a.c.OnPacketSent(congestion.Time(now), packet(p), bytesInFlight, isRetransmittable)
}

func (a *adapter) OnAck(ev wireAckEvent) {
	a.acked = appendPackets(a.acked[:0], ev.Acked)
	a.lost = appendPackets(a.lost[:0], ev.Lost)
	a.c.OnAck(congestion.AckEvent{
		Now:           congestion.Time(ev.Now),
		PriorInFlight: ev.PriorInFlight,
		BytesInFlight: ev.BytesInFlight,
		Acked:         a.acked,
		Lost:          a.lost,
		ECNCE:         ev.ECNCE,
		RTT:           congestion.RTTStats{Latest: ev.LatestRTT, Smoothed: ev.SmoothedRTT, Min: ev.MinRTT},
	})
}

func (a *adapter) OnRetransmissionTimeout(packetsRetransmitted bool) {
	a.c.OnRetransmissionTimeout(packetsRetransmitted)
}

func (a *adapter) OnAppLimited(now, bytesInFlight int64) {
	a.c.OnAppLimited(congestion.Time(now), bytesInFlight)
}

// OnSpuriousLoss passes the report on to controllers that take it.
func (a *adapter) OnSpuriousLoss(now, packetNumber, sentTime int64) {
	if c, ok := a.c.(congestion.SpuriousLossController); ok {
		c.OnSpuriousLoss(congestion.Time(now), packetNumber, congestion.Time(sentTime))
	}
}

func (a *adapter) CanSend(bytesInFlight int64) bool { return a.c.CanSend(bytesInFlight) }

func (a *adapter) HasPacingBudget(now int64) bool {
	return a.c.HasPacingBudget(congestion.Time(now))
}

func (a *adapter) TimeUntilSend(bytesInFlight int64) int64 {
	return int64(a.c.TimeUntilSend(bytesInFlight))
}

func (a *adapter) SetMaxDatagramSize(bytes int64) { a.c.SetMaxDatagramSize(bytes) }

// Info converts: congestion.Info and the wire's struct have the same fields.
func (a *adapter) Info() wireInfo { return wireInfo(a.c.Info()) }

func packet(p wirePacket) congestion.Packet {
	return congestion.Packet{Number: p.Number, Bytes: p.Bytes, SentTime: congestion.Time(p.SentTime)}
}

func appendPackets(dst []congestion.Packet, src []wirePacket) []congestion.Packet {
	for _, p := range src {
		dst = append(dst, packet(p))
	}
	return dst
}
