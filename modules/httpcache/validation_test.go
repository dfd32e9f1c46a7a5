package httpcache

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// A stale entry is revalidated with its validators; a 304 keeps the body
// and takes the new header fields.
func TestRevalidationWith304(t *testing.T) {
	o := newOrigin(t)
	var version string = "v1"
	o.handle("/doc", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=1")
		w.Header().Set("ETag", `"abc"`)
		w.Header().Set("X-Version", version)
		if r.Header.Get("If-None-Match") == `"abc"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Write([]byte("the document body"))
	})
	e, clock := startCacheWithFakeClock(t, o, "")
	first := e.get(t, "/doc")
	clock.advance(2 * time.Second)
	version = "v2"
	r := e.get(t, "/doc")
	if r.body != first.body || r.header.Get("X-Version") != "v2" {
		t.Fatalf("after 304: body %q, X-Version %q", r.body, r.header.Get("X-Version"))
	}
	if !strings.Contains(r.cacheStatus(), "fwd=stale; fwd-status=304") {
		t.Fatalf("Cache-Status %q", r.cacheStatus())
	}
	if got := o.last("/doc").Header.Get("If-None-Match"); got != `"abc"` {
		t.Fatalf("revalidation sent If-None-Match %q", got)
	}
	// Refreshed: fresh again, with the new fields.
	r = e.get(t, "/doc")
	wantHit(t, r)
	if r.header.Get("X-Version") != "v2" {
		t.Fatalf("stored header not updated: %q", r.header.Get("X-Version"))
	}
}

// Browsers' conditional requests are answered from the store; HEAD is
// answered from a stored GET.
func TestConditionalAndHeadFromStore(t *testing.T) {
	o := newOrigin(t)
	lm := time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
	o.respond("/c", 200, "Cache-Control", "max-age=60", "ETag", `W/"x1"`, "Last-Modified", lm)
	e := startCache(t, o, "")
	full := e.get(t, "/c")
	r := e.get(t, "/c", "If-None-Match", `"zzz", W/"x1"`)
	if r.status != http.StatusNotModified || r.body != "" {
		t.Fatalf("If-None-Match: %d %q", r.status, r.body)
	}
	r = e.get(t, "/c", "If-Modified-Since", time.Now().UTC().Format(http.TimeFormat))
	if r.status != http.StatusNotModified {
		t.Fatalf("If-Modified-Since: %d", r.status)
	}
	r = e.get(t, "/c", "If-None-Match", `"other"`)
	if r.status != http.StatusOK || r.body != full.body {
		t.Fatalf("non-matching: %d %q", r.status, r.body)
	}
	h := e.do(t, http.MethodHead, "/c")
	wantHit(t, h)
	if h.status != 200 || h.body != "" || h.header.Get("Content-Length") != full.header.Get("Content-Length") {
		t.Fatalf("HEAD: %d %q %v", h.status, h.body, h.header)
	}
	if o.count("/c") != 1 {
		t.Fatalf("origin saw %d, want 1", o.count("/c"))
	}
}

// A no-cache response is stored but revalidated before every use.
func TestNoCacheResponseRevalidatesEveryTime(t *testing.T) {
	o := newOrigin(t)
	o.handle("/n", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("ETag", `"n1"`)
		if r.Header.Get("If-None-Match") == `"n1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Write([]byte("big body"))
	})
	e := startCache(t, o, "")
	e.get(t, "/n")
	for range 3 {
		r := e.get(t, "/n")
		if r.body != "big body" || !strings.Contains(r.cacheStatus(), "fwd-status=304") {
			t.Fatalf("%q %q", r.body, r.cacheStatus())
		}
	}
	if o.count("/n") != 4 {
		t.Fatalf("origin saw %d, want 4", o.count("/n"))
	}
}

// Qualified no-cache: the named fields are never served from the store.
func TestQualifiedNoCacheStripsFields(t *testing.T) {
	o := newOrigin(t)
	o.respond("/q", 200, "Cache-Control", `max-age=60, no-cache="X-Debug-User"`, "X-Debug-User", "alice")
	e := startCache(t, o, "")
	e.get(t, "/q")
	r := e.get(t, "/q")
	wantHit(t, r)
	if r.header.Get("X-Debug-User") != "" {
		t.Fatal("no-cache field served from the store")
	}
}

// A HEAD that finds a stale entry revalidates it with a GET, so the
// refreshed entry keeps a body for the GETs after it.
func TestHeadRevalidatesWithGet(t *testing.T) {
	o := newOrigin(t)
	o.respond("/h", 200, "Cache-Control", "max-age=1")
	e, clock := startCacheWithFakeClock(t, o, "")
	e.get(t, "/h")
	clock.advance(2 * time.Second)
	if h := e.do(t, http.MethodHead, "/h"); h.status != 200 || h.body != "" {
		t.Fatalf("HEAD: %d %q", h.status, h.body)
	}
	if got := o.last("/h").Method; got != http.MethodGet {
		t.Fatalf("revalidated with %s", got)
	}
	r := e.get(t, "/h")
	wantHit(t, r)
	if r.body != "/h #2" {
		t.Fatalf("GET after HEAD revalidation: %q", r.body)
	}
}
