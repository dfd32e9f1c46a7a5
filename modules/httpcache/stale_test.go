package httpcache

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// stale-while-revalidate serves stale at once and refreshes in the
// background exactly once, however many requests see it stale.
func TestStaleWhileRevalidateRefreshesOnce(t *testing.T) {
	o := newOrigin(t)
	var version atomic.Int64
	refresh := make(chan struct{})
	o.handle("/swr", func(w http.ResponseWriter, r *http.Request) {
		if version.Load() > 0 {
			<-refresh // the refresh hangs until every stale response is out
		}
		w.Header().Set("Cache-Control", "max-age=1, stale-while-revalidate=30")
		w.Write([]byte("version " + string(rune('0'+version.Add(1)))))
	})
	e, clock := startCacheWithFakeClock(t, o, "")
	release := opener(t, refresh)
	if r := e.get(t, "/swr"); r.body != "version 1" {
		t.Fatal(r.body)
	}
	clock.advance(2 * time.Second)
	stale := e.metric(t, `lastmile_cache_requests_total{outcome="stale"}`)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			r := e.get(t, "/swr")
			if r.body != "version 1" || !strings.Contains(r.cacheStatus(), "detail=stale-while-revalidate") {
				t.Errorf("stale response: %q %q", r.body, r.cacheStatus())
			}
		})
	}
	wg.Wait()
	// Served from the cache, so counted with the hits in the hit ratio.
	if got := e.metric(t, `lastmile_cache_requests_total{outcome="stale"}`) - stale; got != 20 {
		t.Errorf("requests_total{outcome=stale} grew by %v, want 20", got)
	}
	release()
	awaitIdle(t, "default")
	if got := o.count("/swr"); got != 2 {
		t.Fatalf("origin saw %d requests, want 2 (one refresh)", got)
	}
	r := e.get(t, "/swr")
	wantHit(t, r)
	if r.body != "version 2" {
		t.Fatalf("after the refresh: %q", r.body)
	}
}

// stale-if-error answers when the origin errors, is down or times out;
// without it, the client sees the error.
func TestStaleIfError(t *testing.T) {
	o := newOrigin(t)
	var mode atomic.Value
	mode.Store("ok")
	o.handle("/sie", func(w http.ResponseWriter, r *http.Request) {
		switch mode.Load() {
		case "500":
			w.WriteHeader(http.StatusInternalServerError)
			return
		case "slow":
			<-r.Context().Done() // held until the edge gives up on it
			return
		}
		w.Header().Set("Cache-Control", "max-age=1, stale-if-error=60")
		w.Write([]byte("good"))
	})
	o.handle("/plain", func(w http.ResponseWriter, r *http.Request) {
		if mode.Load() == "500" {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.Header().Set("Cache-Control", "max-age=1")
		w.Write([]byte("good"))
	})
	e, clock := startCacheWithFakeClock(t, o, "origin_timeout 250ms")
	e.get(t, "/sie")
	e.get(t, "/plain")
	clock.advance(2 * time.Second)

	mode.Store("500")
	r := e.get(t, "/sie")
	if r.status != 200 || r.body != "good" || !strings.Contains(r.cacheStatus(), "detail=stale-if-error") {
		t.Fatalf("origin 500: %d %q %q", r.status, r.body, r.cacheStatus())
	}
	if r := e.get(t, "/plain"); r.status != 500 {
		t.Fatalf("without stale-if-error: %d", r.status)
	}
	mode.Store("slow")
	start := time.Now()
	r = e.get(t, "/sie")
	if r.status != 200 || r.body != "good" || time.Since(start) > 2*time.Second {
		t.Fatalf("origin timing out: %d %q after %v", r.status, r.body, time.Since(start))
	}
	o.Close() // the origin is down
	r = e.get(t, "/sie")
	if r.status != 200 || r.body != "good" {
		t.Fatalf("origin down: %d %q %q", r.status, r.body, r.cacheStatus())
	}
}

// A route default for stale-if-error covers origins that do not send it.
func TestStaleIfErrorDefault(t *testing.T) {
	o := newOrigin(t)
	var fail atomic.Bool
	o.handle("/d", func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		w.Header().Set("Cache-Control", "max-age=1")
		w.Write([]byte("good"))
	})
	e, clock := startCacheWithFakeClock(t, o, "stale_if_error 1m")
	e.get(t, "/d")
	clock.advance(2 * time.Second)
	fail.Store(true)
	if r := e.get(t, "/d"); r.status != 200 || r.body != "good" {
		t.Fatalf("%d %q", r.status, r.body)
	}
}

// s-maxage implies proxy-revalidate, but the origin's own
// stale-while-revalidate beside it is honoured; must-revalidate is not
// overridden by it.
func TestSMaxAgeWithStaleWhileRevalidate(t *testing.T) {
	o := newOrigin(t)
	o.respond("/pattern", 200, "Cache-Control", "public, max-age=0, s-maxage=1, stale-while-revalidate=30")
	o.respond("/strict", 200, "Cache-Control", "s-maxage=1, must-revalidate, stale-while-revalidate=30")
	o.respond("/plain", 200, "Cache-Control", "s-maxage=1")
	e, clock := startCacheWithFakeClock(t, o, "stale_while_revalidate 30s")
	for _, p := range []string{"/pattern", "/strict", "/plain"} {
		e.get(t, p)
	}
	clock.advance(2 * time.Second)
	if r := e.get(t, "/pattern"); !strings.Contains(r.cacheStatus(), "detail=stale-while-revalidate") {
		t.Errorf("/pattern: %q", r.cacheStatus())
	}
	for _, p := range []string{"/strict", "/plain"} {
		if r := e.get(t, p); strings.Contains(r.cacheStatus(), "; hit") {
			t.Errorf("%s served stale: %q", p, r.cacheStatus())
		}
	}
}
