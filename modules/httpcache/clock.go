package httpcache

import (
	"sync/atomic"
	"time"
)

// storeClock is the clock of a store's timeline: every reading that
// decides freshness, age, staleness, refresh-ahead windows, prefetching or
// a missing Date goes through it (CoreDNS's cache has Cache.now for the
// same reason: tests move time instead of sleeping).
//
// It belongs to the named store, not the handler: the entries' times are
// the store's, every handler sharing the store must read one clock, and
// the store outlives the handlers a reload replaces, so a test finds it by
// name (lookupStore) behind a Caddy it only reaches through config.
// Durations measured for Server-Timing stay on the real clock.
type storeClock struct {
	now atomic.Pointer[func() time.Time]
}

func newStoreClock() *storeClock {
	c := new(storeClock)
	c.set(time.Now)
	return c
}

func (c *storeClock) Now() time.Time { return (*c.now.Load())() }

// set replaces the clock; tests set a fake one, and time.Now back.
func (c *storeClock) set(now func() time.Time) { c.now.Store(&now) }
