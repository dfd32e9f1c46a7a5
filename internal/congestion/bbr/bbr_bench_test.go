package bbr

import (
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// BenchmarkPacketCycle is the controller's cost per packet in a steady
// bulk flow: OnPacketSent, the pacing and window checks, and an OnAck of
// two packets every other packet, with 100 packets in flight.
func BenchmarkPacketCycle(b *testing.B) {
	const size, inFlight = 1200, 100
	now := congestion.Time(time.Second)
	c := newBBR(congestion.Conn{InitialMaxDatagramSize: size, Now: func() congestion.Time { return now }}, WithSeed(1))
	rtt := congestion.RTTStats{Latest: 50 * time.Millisecond, Smoothed: 50 * time.Millisecond, Min: 50 * time.Millisecond}
	sent := make([]congestion.Packet, 0, 2*inFlight)
	var next int64
	b.ReportAllocs()
	for b.Loop() {
		now += congestion.Time(500 * time.Microsecond)
		p := congestion.Packet{Number: next, Bytes: size, SentTime: now}
		next++
		sent = append(sent, p)
		c.CanSend(int64(len(sent)) * size)
		c.HasPacingBudget(now)
		c.OnPacketSent(now, p, int64(len(sent))*size, true)
		if len(sent) >= inFlight && next%2 == 0 {
			acked := sent[:2]
			sent = sent[2:]
			c.OnAck(congestion.AckEvent{Now: now, PriorInFlight: int64(len(sent)+2) * size, BytesInFlight: int64(len(sent)) * size, Acked: acked, RTT: rtt})
		}
		c.TimeUntilSend(int64(len(sent)) * size)
	}
}
