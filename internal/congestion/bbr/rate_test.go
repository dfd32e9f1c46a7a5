package bbr

import (
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// Packets sent back to back over a path that delivers one every 10 ms give
// a delivery rate of one packet per 10 ms (§4.1): the ACK rate, not the
// faster send rate, bounds the sample.
func TestSamplerMeasuresDeliveryRate(t *testing.T) {
	s := newSampler()
	const size = 1000
	start := congestion.Time(time.Second)
	var inflight int64
	for n := range int64(20) {
		s.onSent(start, congestion.Packet{Number: n, Bytes: size, SentTime: start}, inflight, inflight+size)
		inflight += size
	}
	var rs rateSample
	for n := range int64(20) {
		now := start.Add(100*time.Millisecond + time.Duration(n)*10*time.Millisecond)
		rs = rateSample{rtt: -1}
		s.onAcked(now, n, &rs)
		s.generate(now, &rs, 100*time.Millisecond)
	}
	want := size / 0.01 // bytes per second
	if r := rs.deliveryRate / want; r < 0.9 || r > 1.1 {
		t.Errorf("delivery rate %.0f B/s, want about %.0f", rs.deliveryRate, want)
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
	s.onSent(now, congestion.Packet{Number: 0, Bytes: 1000}, 0, 1000)
	s.markAppLimited(1000)
	s.onSent(now, congestion.Packet{Number: 1, Bytes: 1000}, 1000, 2000)
	rs := rateSample{rtt: -1}
	s.onAcked(now.Add(time.Millisecond), 1, &rs)
	s.generate(now.Add(time.Millisecond), &rs, 0)
	if !rs.isAppLimited {
		t.Error("packet sent while app-limited gave a sample not marked app-limited")
	}
}
