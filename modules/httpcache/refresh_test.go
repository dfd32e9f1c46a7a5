package httpcache

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// A popular entry is refreshed in the background before it expires, so
// its users never see it stale; an unpopular one is not.
func TestRefreshAhead(t *testing.T) {
	o := newOrigin(t)
	var n atomic.Int64
	for _, p := range []string{"/hot", "/cold"} {
		o.handle(p, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Cache-Control", "max-age=2")
			w.Write([]byte("v" + strconv.FormatInt(n.Add(1), 10)))
		})
	}
	// Popular: 3 hits within 10 s; refreshed in the last 50% of its life.
	e, clock := startCacheWithFakeClock(t, o, "refresh_ahead 3 10s 50%")
	e.get(t, "/hot")
	e.get(t, "/cold")
	clock.advance(1100 * time.Millisecond) // past half of the 2 s lifetime
	for range 3 {
		wantHit(t, e.get(t, "/hot"))
	}
	wantHit(t, e.get(t, "/cold"))
	awaitIdle(t, "default")
	if got := o.count("/hot"); got != 2 {
		t.Fatalf("origin saw %d requests for the popular entry, want 2", got)
	}
	if got := o.count("/cold"); got != 1 {
		t.Fatalf("origin saw %d requests for the unpopular entry, want 1", got)
	}
	clock.advance(time.Second) // the first version has expired now
	wantHit(t, e.get(t, "/hot"))
	wantMiss(t, e.get(t, "/cold"))
}

// Hits count toward popularity within refresh_ahead's window only: three
// hits spread over more than the window do not refresh an entry.
func TestRefreshAheadWindow(t *testing.T) {
	o := newOrigin(t)
	o.respond("/w", http.StatusOK, "Cache-Control", "max-age=100")
	e, clock := startCacheWithFakeClock(t, o, "refresh_ahead 3 10s 50%")
	e.get(t, "/w")
	clock.advance(60 * time.Second) // in the last half of its life
	wantHit(t, e.get(t, "/w"))
	wantHit(t, e.get(t, "/w"))
	clock.advance(11 * time.Second) // a new window
	wantHit(t, e.get(t, "/w"))
	awaitIdle(t, "default")
	if got := o.count("/w"); got != 1 {
		t.Fatalf("refreshed after hits in two windows: origin saw %d requests", got)
	}
	wantHit(t, e.get(t, "/w"))
	wantHit(t, e.get(t, "/w")) // the third in this window
	awaitIdle(t, "default")
	if got := o.count("/w"); got != 2 {
		t.Fatalf("origin saw %d requests, want 2 (one refresh)", got)
	}
}
