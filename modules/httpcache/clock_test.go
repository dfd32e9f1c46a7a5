package httpcache

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a store clock that moves only when a test says.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// useFakeClock gives the named store (and so every edge_cache handler
// using it) a fake clock, and the origin's Date field the same one: the
// origin and the edge then share a wall clock, as they do in production.
// It starts at the real time, so dates a test writes (Last-Modified,
// Expires) agree with it; the real clock is back when the test ends.
func useFakeClock(t *testing.T, storeName string, o *testOrigin) *fakeClock {
	t.Helper()
	s, ok := lookupStore(storeName)
	if !ok {
		t.Fatalf("no store %q", storeName)
	}
	c := &fakeClock{now: time.Now()}
	s.clock.set(c.Now)
	o.mu.Lock()
	o.clock = c
	o.mu.Unlock()
	t.Cleanup(func() { s.clock.set(time.Now) })
	return c
}

// startCacheWithFakeClock is startCache with a fake clock on its store
// and origin.
func startCacheWithFakeClock(t *testing.T, o *testOrigin, options string) (*testEdge, *fakeClock) {
	t.Helper()
	e := startCache(t, o, options)
	return e, useFakeClock(t, "default", o)
}

// eventually polls cond until it holds, failing the test after a few
// seconds: for what the edge does concurrently or in the background.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

// opener returns a func that closes gate once: now, or when the test
// ends. Called after startCache, its cleanup runs before Caddy stops, so a
// test that fails while origin handlers wait on gate does not hang in
// Caddy's shutdown, which waits for their requests.
func opener(t *testing.T, gate chan struct{}) func() {
	var once sync.Once
	open := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(open)
	return open
}

// firstHeld holds the first origin request that calls hold until its
// gate opens (see opener); later requests pass.
type firstHeld struct {
	first atomic.Bool
	gate  chan struct{}
}

func newFirstHeld() *firstHeld { return &firstHeld{gate: make(chan struct{})} }

func (f *firstHeld) hold() {
	if f.first.CompareAndSwap(false, true) {
		<-f.gate
	}
}

// waitersSince returns a func that waits until n requests have joined
// another's fetch after this call.
func (e *testEdge) waitersSince(t *testing.T) func(n int) {
	t.Helper()
	const series = "lastmile_cache_coalesced_total"
	before := e.metric(t, series)
	return func(n int) {
		t.Helper()
		eventually(t, fmt.Sprintf("%d requests to join the first one's fetch", n), func() bool {
			return e.metric(t, series)-before == float64(n)
		})
	}
}

// inFlight is the number of origin fetches the store's handlers run,
// background refreshes and prefetches included.
func (f *flights) inFlight() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.m)
}

// coalesced sends n requests at once, each, while the origin holds the
// first at gate; once the other n-1 have joined its fetch, it opens the
// gate and waits for all n.
func (e *testEdge) coalesced(t *testing.T, gate chan struct{}, n int, each func()) {
	t.Helper()
	release := opener(t, gate)
	awaitWaiters := e.waitersSince(t)
	var wg sync.WaitGroup
	for range n {
		wg.Go(each)
	}
	awaitWaiters(n - 1)
	release()
	wg.Wait()
}

// awaitIdle waits until the named store's background fetches (refreshes,
// prefetches) have ended and stored what they fetched: each holds its
// flight until its response is stored.
func awaitIdle(t *testing.T, storeName string) {
	t.Helper()
	s, ok := lookupStore(storeName)
	if !ok {
		t.Fatalf("no store %q", storeName)
	}
	eventually(t, "the cache's origin fetches to end", func() bool { return s.flights.inFlight() == 0 })
}

// The fake clock set on a store by name drives the real edge, and stays
// with the store across a config reload (the store outlives its handlers).
func TestFakeClockDrivesEdgeAcrossReload(t *testing.T) {
	o := newOrigin(t)
	o.respond("/c", http.StatusOK, "Cache-Control", "max-age=60")
	e, clock := startCacheWithFakeClock(t, o, "")
	e.get(t, "/c")
	clock.advance(59 * time.Second)
	if r := e.get(t, "/c"); r.header.Get("Age") != "59" {
		t.Fatalf("Age %q after 59 s, want 59", r.header.Get("Age"))
	}
	// A reload (a new site address: a new key) provisions new handlers on
	// the same store; were its clock real again, Age would be 0.
	e2 := startCache(t, o, "")
	e2.get(t, "/c")
	clock.advance(2 * time.Second)
	r := e2.get(t, "/c")
	wantHit(t, r)
	if r.header.Get("Age") != "2" {
		t.Fatalf("Age %q after the reload, want 2 by the fake clock", r.header.Get("Age"))
	}
}
