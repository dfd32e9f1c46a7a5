package bbr

import (
	"testing"
	"time"
)

// Delivery rates measured while the application, not the network, limits
// the sender do not lower the bandwidth estimate (§5.5.4): after a bulk
// transfer, 20 s of sending at a fifth of the link leaves max_bw at the
// link rate.
func TestAppLimitedSamplesKeepEstimate(t *testing.T) {
	p := path{rate: mbit(10), delay: 20 * time.Millisecond}
	s, b := newBulkBBR(p, 8)
	s.run(5 * time.Second)
	s.unlimited = false
	learned := b.maxBw
	if r := learned / p.rate; r < 0.95 || r > 1.05 {
		t.Fatalf("bulk transfer estimated %.3f of the link", r)
	}
	// 25 KB every 100 ms: 2 Mbit/s.
	for i := range 200 {
		s.at(time.Duration(i)*100*time.Millisecond, func() { s.send(25_000) })
	}
	lowest := learned
	appLimitedSamples := 0
	s.afterAck = func() {
		lowest = min(lowest, b.maxBw)
		if b.rs.isAppLimited && b.rs.deliveryRate > 0 {
			appLimitedSamples++
		}
	}
	s.run(20 * time.Second)
	t.Logf("max_bw %.0f B/s after bulk, lowest %.0f during 20 s at 2 Mbit/s (%d app-limited samples); pacing rate %d",
		learned, lowest, appLimitedSamples, b.Info().PacingRate)
	if appLimitedSamples == 0 {
		t.Fatal("no app-limited samples: the test did not exercise them")
	}
	if lowest < 0.95*learned {
		t.Errorf("app-limited samples lowered max_bw from %.0f to %.0f", learned, lowest)
	}
}
