package httpcache

import (
	"net/http"
	"testing"
	"time"
)

// If-Modified-Since against a stored response without Last-Modified is
// evaluated against its Date (RFC 9111 section 4.3.2): not modified since
// a time after it, modified since a time before it.
func TestIfModifiedSinceWithoutLastModified(t *testing.T) {
	o := newOrigin(t)
	date := time.Now().Add(-time.Hour).UTC()
	o.respond("/d", 200, "Cache-Control", "max-age=60", "Date", date.Format(http.TimeFormat))
	e := startCache(t, o, "")
	e.get(t, "/d")
	if r := e.get(t, "/d", "If-Modified-Since", date.Add(time.Minute).Format(http.TimeFormat)); r.status != http.StatusNotModified {
		t.Fatalf("since after Date: %d, want 304", r.status)
	}
	if r := e.get(t, "/d", "If-Modified-Since", date.Add(-time.Minute).Format(http.TimeFormat)); r.status != http.StatusOK || r.body == "" {
		t.Fatalf("since before Date: %d %q, want the response", r.status, r.body)
	}
}
