package httpcache

import (
	"testing"
	"time"
)

// Micro-caching keeps header-less dynamic pages for a second when the
// route opts in; never with Set-Cookie or private, nor for requests with
// credentials unless the route says so.
func TestMicroCache(t *testing.T) {
	o := newOrigin(t)
	o.respond("/dyn", 200)
	o.respond("/cookie", 200, "Set-Cookie", "s=1")
	o.respond("/private", 200, "Cache-Control", "private")
	e, clock := startCacheWithFakeClock(t, o, "micro_cache 1s")
	e.get(t, "/dyn")
	clock.advance(999 * time.Millisecond)
	wantHit(t, e.get(t, "/dyn"))
	clock.advance(time.Millisecond) // fresh while its age is below 1 s
	wantMiss(t, e.get(t, "/dyn"))
	for _, p := range []string{"/cookie", "/private"} {
		e.get(t, p)
		wantMiss(t, e.get(t, p))
	}
	// A request with cookies does not get its response micro-cached.
	o.respond("/c", 200)
	e.get(t, "/c", "Cookie", "s=alice")
	wantMiss(t, e.get(t, "/c"))
}

// `micro_cache ... credentials` micro-caches responses to requests with
// cookies too.
func TestMicroCacheCredentials(t *testing.T) {
	o := newOrigin(t)
	o.respond("/c", 200)
	e := startCache(t, o, "micro_cache 1s credentials")
	e.get(t, "/c", "Cookie", "s=alice")
	wantHit(t, e.get(t, "/c"))
}

// Off by default: a page without cache headers is not stored.
func TestMicroCacheOffByDefault(t *testing.T) {
	o := newOrigin(t)
	o.respond("/dyn", 200)
	e := startCache(t, o, "")
	e.get(t, "/dyn")
	wantMiss(t, e.get(t, "/dyn"))
}
