package anycast

import (
	"testing"
	"time"
)

// A withdrawal is immediate; an announcement waits for an unbroken
// hold-down of readiness, and any break restarts it.
func TestGateHoldDown(t *testing.T) {
	g := gate{holdDown: 10 * time.Second}
	t0 := time.Unix(1000, 0)
	steps := []struct {
		at    time.Duration
		ready bool
		want  bool
	}{
		{0, true, false}, {9 * time.Second, true, false}, {10 * time.Second, true, true},
		{11 * time.Second, false, false},                                  // withdrawn at once
		{12 * time.Second, true, false}, {20 * time.Second, false, false}, // a flap restarts the hold-down
		{21 * time.Second, true, false}, {30 * time.Second, true, false}, {31 * time.Second, true, true},
	}
	for _, s := range steps {
		if got := g.observe(s.ready, t0.Add(s.at)); got != s.want {
			t.Fatalf("at %s ready=%v: announce=%v, want %v", s.at, s.ready, got, s.want)
		}
	}
}
