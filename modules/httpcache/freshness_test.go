package httpcache

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestFreshnessFromResponseHeaders(t *testing.T) {
	o := newOrigin(t)
	past := time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
	future := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	o.respond("/max-age", 200, "Cache-Control", "max-age=60")
	o.respond("/s-maxage", 200, "Cache-Control", "max-age=0, s-maxage=60")
	o.respond("/expires", 200, "Expires", future)
	o.respond("/expired", 200, "Expires", past)
	o.respond("/bad-expires", 200, "Expires", "0")
	o.respond("/old-age", 200, "Cache-Control", "max-age=60", "Age", "100")
	o.respond("/no-store", 200, "Cache-Control", "no-store, max-age=60")
	o.respond("/private", 200, "Cache-Control", "private, max-age=60")
	o.respond("/nothing", 200)
	o.respond("/404", 404, "Cache-Control", "max-age=60")
	o.respond("/500", 500, "Cache-Control", "max-age=60") // RFC 9111 section 3: explicit freshness
	o.respond("/500-bare", 500)
	e := startCache(t, o, "")
	for path, cached := range map[string]bool{
		"/max-age": true, "/s-maxage": true, "/expires": true, "/404": true, "/500": true,
		"/expired": false, "/bad-expires": false, "/old-age": false,
		"/no-store": false, "/private": false, "/nothing": false, "/500-bare": false,
	} {
		first := e.get(t, path)
		second := e.get(t, path)
		if cached {
			wantHit(t, second)
			if second.body != first.body {
				t.Errorf("%s: hit body %q, stored %q", path, second.body, first.body)
			}
			if o.count(path) != 1 {
				t.Errorf("%s: origin saw %d requests, want 1", path, o.count(path))
			}
		} else {
			wantMiss(t, second)
			if o.count(path) != 2 {
				t.Errorf("%s: origin saw %d requests, want 2", path, o.count(path))
			}
		}
	}
}

// Every response from the store carries Age, grown by the time it spent
// there plus the Age it arrived with.
func TestAgeOnCachedResponses(t *testing.T) {
	o := newOrigin(t)
	o.respond("/a", 200, "Cache-Control", "max-age=600", "Age", "30")
	e, clock := startCacheWithFakeClock(t, o, "")
	e.get(t, "/a")
	clock.advance(10 * time.Second)
	r := e.get(t, "/a")
	wantHit(t, r)
	if age := r.header.Get("Age"); age != "40" {
		t.Fatalf("Age %q, want 40", age)
	}
	if !strings.Contains(r.cacheStatus(), "ttl=560") {
		t.Errorf("Cache-Status %q, want ttl=560", r.cacheStatus())
	}
}

// Heuristic freshness: 10% of the time since Last-Modified, switchable off.
func TestHeuristicFreshness(t *testing.T) {
	o := newOrigin(t)
	lm := time.Now().Add(-100 * time.Hour).UTC().Format(http.TimeFormat)
	o.respond("/page", 200, "Last-Modified", lm)
	o.respond("/500", 500, "Last-Modified", lm)
	e := startCache(t, o, "")
	e.get(t, "/page")
	r := e.get(t, "/page")
	wantHit(t, r)
	// 10% of 100 h is 10 h, capped by heuristic_max 1h.
	if !strings.Contains(r.cacheStatus(), "ttl=359") {
		t.Errorf("Cache-Status %q, want ttl about 3600", r.cacheStatus())
	}
	e.get(t, "/500")
	wantMiss(t, e.get(t, "/500"))

	o2 := newOrigin(t)
	o2.respond("/page", 200, "Last-Modified", lm)
	e2 := startCache(t, o2, "heuristic off")
	e2.get(t, "/page")
	r = e2.get(t, "/page")
	// Stored (it has a validator) but never fresh: revalidated.
	if strings.Contains(r.cacheStatus(), "; hit") {
		t.Fatalf("heuristic off: %q", r.cacheStatus())
	}
}

func TestRequestDirectives(t *testing.T) {
	o := newOrigin(t)
	o.respond("/r", 200, "Cache-Control", "max-age=60", "ETag", `"v1"`)
	e, clock := startCacheWithFakeClock(t, o, "")
	e.get(t, "/r")
	wantHit(t, e.get(t, "/r"))
	// no-cache: the edge revalidates (the origin answers 200 here, as
	// this origin ignores If-None-Match).
	wantMiss(t, e.get(t, "/r", "Cache-Control", "no-cache"))
	wantMiss(t, e.get(t, "/r", "Pragma", "no-cache"))
	n := o.count("/r")
	clock.advance(10 * time.Second)
	wantMiss(t, e.get(t, "/r", "Cache-Control", "max-age=0"))
	wantHit(t, e.get(t, "/r", "Cache-Control", "max-age=30"))
	wantMiss(t, e.get(t, "/r", "Cache-Control", "min-fresh=3600"))
	wantHit(t, e.get(t, "/r", "Cache-Control", "min-fresh=10"))
	if got := o.count("/r") - n; got != 2 {
		t.Errorf("origin saw %d requests, want 2", got)
	}
	// only-if-cached: 504 when not stored, the entry when it is.
	r := e.get(t, "/nope", "Cache-Control", "only-if-cached")
	if r.status != http.StatusGatewayTimeout || o.count("/nope") != 0 {
		t.Fatalf("only-if-cached miss: %d, origin %d", r.status, o.count("/nope"))
	}
	wantHit(t, e.get(t, "/r", "Cache-Control", "only-if-cached"))
}

// max-stale lets a client take a stale entry; must-revalidate forbids it.
func TestMaxStale(t *testing.T) {
	o := newOrigin(t)
	o.respond("/s", 200, "Cache-Control", "max-age=1")
	o.respond("/m", 200, "Cache-Control", "max-age=1, must-revalidate")
	e, clock := startCacheWithFakeClock(t, o, "")
	e.get(t, "/s")
	e.get(t, "/m")
	clock.advance(5 * time.Second)
	r := e.get(t, "/s", "Cache-Control", "max-stale=60")
	wantHit(t, r)
	if !strings.Contains(r.cacheStatus(), "detail=max-stale") {
		t.Errorf("Cache-Status %q", r.cacheStatus())
	}
	wantMiss(t, e.get(t, "/m", "Cache-Control", "max-stale=60"))
}

// A request's no-store keeps its response out of the store (RFC 9111
// section 5.2.1.5); a stored response still answers it.
func TestRequestNoStore(t *testing.T) {
	o := newOrigin(t)
	o.respond("/n", 200, "Cache-Control", "max-age=60")
	e := startCache(t, o, "")
	e.get(t, "/n", "Cache-Control", "no-store")
	wantMiss(t, e.get(t, "/n"))
	wantHit(t, e.get(t, "/n", "Cache-Control", "no-store"))
	if got := o.count("/n"); got != 2 {
		t.Fatalf("origin saw %d requests, want 2", got)
	}
}
