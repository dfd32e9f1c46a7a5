package anycast

import (
	"sync"
	"time"
)

// drainState is the operator's drain. It belongs to the process, not to a
// config: a config reload must not undo a drain.
var drainState drainFlag

type drainFlag struct {
	mu    sync.Mutex
	start time.Time // zero when not draining
}

func (d *drainFlag) since() (time.Time, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.start, !d.start.IsZero()
}

// drain starts a drain (a second call keeps the first one's start) and
// wakes the running app so the route is withdrawn at once.
func drain() {
	drainState.mu.Lock()
	if drainState.start.IsZero() {
		drainState.start = time.Now()
	}
	drainState.mu.Unlock()
	if a := current.Load(); a != nil {
		a.poke()
	}
}

// undrain ends a drain; the route comes back after the hold-down.
func undrain() {
	drainState.mu.Lock()
	drainState.start = time.Time{}
	drainState.mu.Unlock()
	if a := current.Load(); a != nil {
		a.poke()
	}
}
