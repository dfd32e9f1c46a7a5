package anycast

import "time"

// gate turns readiness into announce/withdraw with a hold-down: a
// withdrawal is immediate, an announcement waits until the node has been
// ready for holdDown without a break.
type gate struct {
	holdDown   time.Duration
	announced  bool
	readySince time.Time
}

func (g *gate) observe(ready bool, now time.Time) bool {
	if !ready {
		g.readySince, g.announced = time.Time{}, false
		return false
	}
	if g.readySince.IsZero() {
		g.readySince = now
	}
	if !g.announced && now.Sub(g.readySince) >= g.holdDown {
		g.announced = true
	}
	return g.announced
}
