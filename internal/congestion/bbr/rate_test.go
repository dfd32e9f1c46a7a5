package bbr

import (
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// A flow sending one packet every 10 ms over a 100 ms round trip gets
// delivery rate samples of one packet per 10 ms (§4.1), once the first
// round, whose sample spans the round trip itself, is over.
func TestSamplerMeasuresDeliveryRate(t *testing.T) {
	s := newSampler()
	const size, gap, rtt = 1000, 10 * time.Millisecond, 100 * time.Millisecond
	start := congestion.Time(time.Second)
	var inflight int64
	var rs rateSample
	for n := range int64(50) {
		now := start.Add(time.Duration(n) * gap)
		if acked := n - int64(rtt/gap); acked >= 0 {
			rs = rateSample{rtt: -1}
			s.onAcked(now, congestion.Packet{Number: acked, Bytes: size, SentTime: start.Add(time.Duration(acked) * gap)}, &rs)
			inflight -= size
			s.generate(now, &rs, rtt)
		}
		s.onSent(now, congestion.Packet{Number: n, Bytes: size, SentTime: now}, inflight, inflight+size)
		inflight += size
	}
	want := size / gap.Seconds()
	if r := rs.deliveryRate / want; r < 0.95 || r > 1.05 {
		t.Errorf("delivery rate %.0f B/s, want %.0f", rs.deliveryRate, want)
	}
	if rs.rtt != rtt {
		t.Errorf("RTT sample %v, want %v", rs.rtt, rtt)
	}
	if rs.isAppLimited {
		t.Error("sample marked app-limited")
	}
}

// Packets sent while app-limited give app-limited samples until the data
// in flight when the app ran dry has been delivered.
func TestSamplerMarksAppLimited(t *testing.T) {
	s := newSampler()
	now := congestion.Time(time.Second)
	s.onSent(now, congestion.Packet{Number: 0, Bytes: 1000, SentTime: now}, 0, 1000)
	s.markAppLimited(1000)
	s.onSent(now, congestion.Packet{Number: 1, Bytes: 1000, SentTime: now}, 1000, 2000)
	rs := rateSample{rtt: -1}
	s.onAcked(now.Add(time.Millisecond), congestion.Packet{Number: 1, Bytes: 1000, SentTime: now}, &rs)
	s.generate(now.Add(time.Millisecond), &rs, 0)
	if !rs.isAppLimited {
		t.Error("packet sent while app-limited gave a sample not marked app-limited")
	}
}

// A packet of another number space with the same number is not taken for
// the one sent: its acknowledgement gives no sample.
func TestSamplerTellsNumberSpacesApart(t *testing.T) {
	s := newSampler()
	now := congestion.Time(time.Second)
	s.onSent(now, congestion.Packet{Number: 0, Bytes: 1000, SentTime: now}, 0, 1000)
	initial := congestion.Packet{Number: 0, Bytes: 1000, SentTime: now - 1}
	rs := rateSample{rtt: -1}
	s.onAcked(now.Add(time.Millisecond), initial, &rs)
	if rs.hasData || s.delivered != 0 {
		t.Fatal("the ACK of another space's packet 0 was taken for 1-RTT packet 0")
	}
	s.onAcked(now.Add(time.Millisecond), congestion.Packet{Number: 0, Bytes: 1000, SentTime: now}, &rs)
	if !rs.hasData || s.delivered != 1000 {
		t.Fatal("the ACK of the packet sent gave no sample")
	}
}
