package bbr

import (
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// FuzzController feeds BBR arbitrary sequences of sends, ACKs, losses, ECN
// marks, timeouts, app-limited spells, MTU changes and clock jumps, as a
// buggy or hostile peer could provoke, and checks after each event that it
// neither panics nor produces an unusable output: cwnd at least
// BBR.MinPipeCwnd and bounded, a positive bounded pacing rate, a send time
// not before the last ack-eliciting packet, and a pacer that names a time
// when it says no and keeps its word.
func FuzzController(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 5, 2, 0, 3, 7, 1, 1, 9})
	f.Add([]byte{0, 255, 0, 255, 0, 255, 1, 2, 2, 1, 3, 4, 5, 6, 6, 0})
	f.Add([]byte("\x00\x10\x00\x10\x00\x10\x01\x03\x02\x02\x04\x00\x05\xff\x06\x80\x07\x01"))
	f.Add([]byte{0, 9, 1, 20, 0, 9, 0, 9, 0, 9, 0, 9, 1, 20, 2, 3, 0, 9, 80}) // resuming
	f.Fuzz(runOps)
}

// runOps interprets ops as controller events, two bytes each.
func runOps(t *testing.T, ops []byte) {
	now := congestion.Time(1)
	smss := int64(1200)
	opts := []Option{WithSeed(1)}
	if len(ops)%2 == 1 { // an odd last byte: a resuming connection, its saved window and loss rate from the byte
		last := ops[len(ops)-1]
		opts = append(opts, WithResume(Resume{Cwnd: (int64(last) + 1) << 12, RTT: 20 * time.Millisecond,
			LossRate: float64(last%16) / 100}))
	}
	b := newBBR(congestion.Conn{InitialMaxDatagramSize: smss, Now: func() congestion.Time { return now }}, opts...)
	var outstanding []congestion.Packet
	var inflight, next int64
	var lastSend congestion.Time
	take := func(n int) []congestion.Packet {
		n = min(n, len(outstanding))
		ps := append([]congestion.Packet(nil), outstanding[:n]...)
		outstanding = outstanding[n:]
		for _, p := range ps {
			inflight -= p.Bytes
		}
		return ps
	}
	for i := 0; i+1 < len(ops); i += 2 {
		op, arg := ops[i]%8, int64(ops[i+1])
		switch op {
		case 0: // send a packet
			p := congestion.Packet{Number: next, Bytes: 1 + arg*8, SentTime: now}
			next++
			ackEliciting := arg%7 != 0
			if ackEliciting { // others do not count in flight
				inflight += p.Bytes
				outstanding = append(outstanding, p)
				lastSend = now
			}
			b.OnPacketSent(now, p, inflight, ackEliciting)
		case 1: // acknowledge the oldest packets
			prior := inflight
			acked := take(int(arg%5) + 1)
			b.OnAck(congestion.AckEvent{Now: now, PriorInFlight: prior, BytesInFlight: inflight, Acked: acked,
				RTT: congestion.RTTStats{Latest: time.Duration(arg) * time.Millisecond, Smoothed: 50 * time.Millisecond, Min: time.Duration(arg) * time.Microsecond}})
		case 2: // lose packets, with an ACK of later ones and CE marks
			prior := inflight
			lost := take(int(arg % 4))
			acked := take(int(arg%3) + 1)
			b.OnAck(congestion.AckEvent{Now: now, PriorInFlight: prior, BytesInFlight: inflight, Acked: acked, Lost: lost, ECNCE: arg % 3})
		case 3: // time passes: microseconds to minutes
			now += congestion.Time(arg * arg * arg * int64(time.Microsecond) * 100)
		case 4:
			b.OnRetransmissionTimeout(arg%2 == 0)
		case 5:
			b.OnAppLimited(now, inflight)
		case 6:
			smss = max(smss, 1200+arg*4)
			b.SetMaxDatagramSize(smss)
		case 7: // acknowledge packets the controller never saw, or twice
			b.OnAck(congestion.AckEvent{Now: now, Acked: []congestion.Packet{{Number: next + arg, Bytes: arg}, {Number: arg, Bytes: 1}}, BytesInFlight: inflight})
		}
		info := b.Info()
		if info.CongestionWindow < b.minPipeCwnd() || info.CongestionWindow > maxVolume {
			t.Fatalf("op %d: cwnd %d outside [%d, %d]", i/2, info.CongestionWindow, b.minPipeCwnd(), int64(maxVolume))
		}
		if info.PacingRate <= 0 || info.PacingRate > maxVolume {
			t.Fatalf("op %d: pacing rate %d", i/2, info.PacingRate)
		}
		at := b.TimeUntilSend(inflight)
		if at != 0 && at < lastSend {
			t.Fatalf("op %d: next send at %d, before the last send %d", i/2, at, lastSend)
		}
		// A pacer that says no must name a later time, or quic-go's send
		// loop spins; and at that time it must say yes.
		if now >= lastSend && !b.HasPacingBudget(now) {
			if at <= now {
				t.Fatalf("op %d: no pacing budget at %d, yet next send at %d", i/2, now, at)
			}
			if !b.HasPacingBudget(at) {
				t.Fatalf("op %d: still no pacing budget at the time given, %d", i/2, at)
			}
		}
		b.CanSend(inflight)
	}
}
