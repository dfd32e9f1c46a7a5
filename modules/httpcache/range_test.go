package httpcache

import (
	"net/http"
	"testing"
)

// A range of a fresh stored response is served from the store, with the
// stored header fields; If-Range that does not match gets the whole
// response (RFC 9110 sections 14 and 13.1.5). A range of what is not
// stored, or stale, goes to the origin, and its partial answer is not
// stored.
func TestRangeFromStore(t *testing.T) {
	o := newOrigin(t)
	o.handle("/r", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("ETag", `"r1"`)
		w.Header().Set("X-Stored", "yes")
		w.Write([]byte("0123456789"))
	})
	e := startCache(t, o, "")
	e.get(t, "/r")
	r := e.get(t, "/r", "Range", "bytes=2-4")
	wantHit(t, r)
	if r.status != http.StatusPartialContent || r.body != "234" || r.header.Get("Content-Range") != "bytes 2-4/10" || r.header.Get("X-Stored") != "yes" {
		t.Fatalf("range: %d %q %v", r.status, r.body, r.header)
	}
	r = e.get(t, "/r", "Range", "bytes=2-4", "If-Range", `"changed"`)
	if r.status != http.StatusOK || r.body != "0123456789" {
		t.Fatalf("If-Range mismatch: %d %q", r.status, r.body)
	}
	if o.count("/r") != 1 {
		t.Fatalf("origin saw %d requests, want 1", o.count("/r"))
	}

	// Stale: only-if-cached still keeps it from the origin (RFC 9111
	// section 5.2.1.7).
	o.respond("/stale", 200, "Cache-Control", "max-age=60", "Age", "120")
	e.get(t, "/stale")
	if r := e.get(t, "/stale", "Range", "bytes=0-1", "Cache-Control", "only-if-cached"); r.status != http.StatusGatewayTimeout || o.count("/stale") != 1 {
		t.Fatalf("only-if-cached range of a stale entry: %d, origin saw %d", r.status, o.count("/stale"))
	}

	o.respond("/cold", 200, "Cache-Control", "max-age=60")
	e.get(t, "/cold", "Range", "bytes=0-1")
	wantMiss(t, e.get(t, "/cold"))
	if got := o.last("/cold").Header.Get("Range"); got != "" {
		t.Fatalf("the full fetch carried Range %q", got)
	}
}
