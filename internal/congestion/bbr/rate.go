package bbr

import (
	"time"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// The delivery rate sampler of §4.1.2. The draft keeps the per-packet
// snapshot (P.delivered, P.delivered_time, ...) in the transport's packet
// records; quic-go's records are not ours to extend, so the sampler keeps
// them itself, keyed by packet number, from OnPacketSent until the packet
// is acknowledged or declared lost. QUIC numbers packets per packet number
// space, so during the handshake an Initial, a Handshake and a 1-RTT
// packet may share a number; the controller interface does not name the
// space, so a record also keeps the transport's send time, and an
// acknowledgement or loss with another send time belongs to another
// packet and is ignored.

// sentPacket is the per-packet state of §4.1.2.1.2.
type sentPacket struct {
	size     int64
	sendTime congestion.Time // P.send_time
	// transportTime is the send time the transport gave, which its ACKs
	// repeat: it tells packets of different number spaces apart.
	transportTime congestion.Time
	delivered     int64           // P.delivered
	deliveredTime congestion.Time // P.delivered_time
	firstSendTime congestion.Time // P.first_send_time
	lost          int64           // P.lost
	lostEvents    int64           // C.lost_events when sent (burst.go)
	txInFlight    int64           // P.tx_in_flight, including this packet
	appLimited    bool            // P.is_app_limited
	// unclocked marks a packet sent from idle before any ACK came back;
	// rebased, one whose snapshot was moved to that first ACK (rebase).
	unclocked, rebased bool
}

// rateSample is RS (§2.3, §4.1.2.1.3) for one ACK.
type rateSample struct {
	hasData        bool
	deliveryRate   float64 // bytes per second; 0 when no reliable sample
	isAppLimited   bool
	interval       time.Duration
	delivered      int64
	priorDelivered int64
	sendElapsed    time.Duration
	ackElapsed     time.Duration
	lastAcked      int64 // RS.last_acked_packet_id
	newestSendTime congestion.Time
	rtt            time.Duration // -1: none
	newlyAcked     int64
	txInFlight     int64
	lost           int64
	lostEvents     int64 // loss events (runs of lost packets) since sent
	// filledPipe marks a sample of a flight sent from idle whose ACKs kept
	// coming for filledPipeRTTs min_rtt after its first (rebase): the
	// flight kept the bottleneck busy, app-limited or not.
	filledPipe bool
	rebased    bool // the sample's packet was rebased
}

// sampler is the per-connection (C) state of §4.1.2.1.1.
type sampler struct {
	delivered     int64 // C.delivered
	deliveredTime congestion.Time
	firstSendTime congestion.Time
	lost          int64 // C.lost
	// lostEvents counts loss events: runs of consecutively numbered
	// packets declared lost, each counted once (burst.go).
	lostEvents int64
	// appLimited is C.app_limited: the delivered count that ends the
	// current app-limited phase, 0 when not app-limited.
	appLimited int64
	// unclocked: a flight left from idle and none of its ACKs came back.
	unclocked bool
	packets   map[int64]sentPacket
}

func newSampler() sampler {
	return sampler{packets: make(map[int64]sentPacket)}
}

// onSent snapshots the connection's delivery state into the packet
// (§4.1.2.2). priorInFlight excludes the packet, inflight includes it.
func (s *sampler) onSent(now congestion.Time, p congestion.Packet, priorInFlight, inflight int64) {
	if priorInFlight == 0 {
		s.firstSendTime, s.deliveredTime = now, now
		// A connection's first flight is left as the draft measures it.
		s.unclocked = s.delivered > 0
		// Nothing is in flight, so any record left is of a packet the
		// transport dropped without reporting it (quic-go discards
		// Initial and Handshake packets with their keys): forget them.
		clear(s.packets)
	}
	s.packets[p.Number] = sentPacket{
		size:          p.Bytes,
		sendTime:      now,
		transportTime: p.SentTime,
		delivered:     s.delivered,
		deliveredTime: s.deliveredTime,
		firstSendTime: s.firstSendTime,
		lost:          s.lost,
		lostEvents:    s.lostEvents,
		txInFlight:    inflight,
		appLimited:    s.appLimited != 0,
		unclocked:     s.unclocked,
	}
}

// take removes and returns the record of packet pk, if it is the one sent.
func (s *sampler) take(pk congestion.Packet) (sentPacket, bool) {
	p, ok := s.packets[pk.Number]
	if !ok || pk.SentTime != p.transportTime {
		return sentPacket{}, false
	}
	delete(s.packets, pk.Number)
	return p, true
}

// onAcked is UpdateRateSample (§4.1.2.3) for one newly acknowledged
// packet. Packets it does not know (already acknowledged or lost, or sent
// before the controller was installed) are ignored.
func (s *sampler) onAcked(now congestion.Time, pk congestion.Packet, rs *rateSample) {
	number := pk.Number
	p, ok := s.take(pk)
	if !ok {
		return
	}
	s.delivered += p.size
	s.deliveredTime = now
	rs.newlyAcked += p.size
	if !rs.hasData || p.sendTime > s.firstSendTime ||
		(p.sendTime == s.firstSendTime && number > rs.lastAcked) {
		rs.hasData = true
		rs.priorDelivered = p.delivered
		rs.isAppLimited = p.appLimited
		rs.sendElapsed = p.sendTime.Sub(p.firstSendTime)
		rs.ackElapsed = s.deliveredTime.Sub(p.deliveredTime)
		rs.lastAcked = number
		rs.newestSendTime = p.sendTime
		rs.txInFlight = p.txInFlight
		rs.lost = p.lost
		rs.lostEvents = p.lostEvents
		rs.rebased = p.rebased
		s.firstSendTime = p.sendTime
	}
}

// onLost removes a packet declared lost and returns its record.
func (s *sampler) onLost(pk congestion.Packet) (sentPacket, bool) {
	s.lost += pk.Bytes
	return s.take(pk)
}

// generate is GenerateRateSample (§4.1.2.3): it completes rs once every
// packet of the ACK went through onAcked. minRTT is the connection's.
func (s *sampler) generate(now congestion.Time, rs *rateSample, minRTT time.Duration) {
	if s.appLimited != 0 && s.delivered > s.appLimited {
		s.appLimited = 0 // the app-limited bubble is acknowledged
	}
	if !rs.hasData {
		return
	}
	defer s.rebase(now)
	rs.rtt = now.Sub(rs.newestSendTime)
	// rs.lost was P.lost: turn it into the data lost since P was sent.
	rs.lost = s.lost - rs.lost
	rs.lostEvents = s.lostEvents - rs.lostEvents
	rs.interval = max(rs.sendElapsed, rs.ackElapsed)
	rs.delivered = s.delivered - rs.priorDelivered
	// An interval shorter than the minimum RTT gives no reliable rate (the
	// ACK was compressed, or acknowledged a retransmission early).
	if rs.interval < minRTT || rs.interval <= 0 {
		return
	}
	rs.deliveryRate = float64(rs.delivered) / rs.interval.Seconds()
	rs.filledPipe = rs.rebased && float64(rs.ackElapsed) >= filledPipeRTTs*float64(minRTT)
}

// rebase runs at the first ACK of a flight sent from idle. The draft
// snapshots each packet's delivery state when it leaves, so every packet
// of a flight that left before its first ACK came back measures its
// interval from the flight's start, a whole round trip before any of it
// could be delivered: a kept connection's page sent in less than a round
// trip can only show a fraction of the bottleneck's rate, and no round of
// it is free of the idle bubble (app-limited). Moving those packets'
// snapshots to this ACK, as if they had left just after it, measures the
// rest of the flight by its ACK rate, the bottleneck's while the flight
// queues there. The sample's usual guard (an interval of at least
// min_rtt) keeps only flights whose ACKs span a round trip, that is
// flights larger than the BDP; one whose ACKs span filledPipeRTTs round
// trips filled the pipe (rs.filledPipe).
func (s *sampler) rebase(now congestion.Time) {
	if !s.unclocked {
		return
	}
	s.unclocked = false
	for n, p := range s.packets {
		if !p.unclocked {
			continue
		}
		p.unclocked, p.rebased = false, true
		p.delivered, p.deliveredTime, p.firstSendTime = s.delivered, now, s.firstSendTime
		s.packets[n] = p
	}
}

// markAppLimited is MarkConnectionAppLimited (§4.1.2.4): samples of data
// sent from now until what is in flight is delivered are app-limited.
func (s *sampler) markAppLimited(inflight int64) {
	s.appLimited = max(s.delivered+inflight, 1)
}
