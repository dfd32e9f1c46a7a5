package httpcache

import (
	"net/http"
	"strings"
	"testing"
)

func TestPurgeAPI(t *testing.T) {
	o := newOrigin(t)
	o.respond("/a/1", 200, "Cache-Control", "max-age=60", "Surrogate-Key", "products p1")
	o.respond("/a/2", 200, "Cache-Control", "max-age=60", "Cache-Tag", "products,p2")
	o.respond("/b/1", 200, "Cache-Control", "max-age=60, stale-while-revalidate=60")
	o.respond("/b/2", 200, "Cache-Control", "max-age=60")
	e := startCache(t, o, "purge_token s3cret")
	fill := func() {
		for _, p := range []string{"/a/1", "/a/2", "/b/1", "/b/2"} {
			e.get(t, p)
		}
	}
	fill()

	// Authentication first.
	if code, _ := e.purge(t, "", `{"all":true}`); code != http.StatusUnauthorized {
		t.Fatalf("no token: %d", code)
	}
	if code, _ := e.purge(t, "wrong", `{"all":true}`); code != http.StatusUnauthorized {
		t.Fatalf("wrong token: %d", code)
	}
	if code, body := e.purge(t, "s3cret", `{"urls":[1]}`); code != http.StatusBadRequest {
		t.Fatalf("malformed: %d %s", code, body)
	}
	if code, _ := e.purge(t, "s3cret", `{"cache":"nope","all":true}`); code != http.StatusNotFound {
		t.Fatalf("unknown cache: %d", code)
	}
	wantHit(t, e.get(t, "/a/1"))

	// By tag.
	if code, body := e.purge(t, "s3cret", `{"tags":["products"]}`); code != 200 || !strings.Contains(body, `"purged":2`) {
		t.Fatalf("tag purge: %d %s", code, body)
	}
	wantMiss(t, e.get(t, "/a/1"))
	wantMiss(t, e.get(t, "/a/2"))
	wantHit(t, e.get(t, "/b/1"))

	// By URL.
	if code, body := e.purge(t, "s3cret", `{"urls":["`+e.base+`/b/2"]}`); code != 200 || !strings.Contains(body, `"purged":1`) {
		t.Fatalf("url purge: %d %s", code, body)
	}
	wantMiss(t, e.get(t, "/b/2"))

	// Soft purge by prefix: marked stale, so stale-while-revalidate may
	// still answer while the edge refreshes.
	if code, body := e.purge(t, "s3cret", `{"prefixes":["`+e.base+`/b/"],"soft":true}`); code != 200 || !strings.Contains(body, `"purged":2`) {
		t.Fatalf("soft prefix purge: %d %s", code, body)
	}
	r := e.get(t, "/b/1")
	if !strings.Contains(r.cacheStatus(), "stale-while-revalidate") {
		t.Fatalf("soft-purged entry: %q", r.cacheStatus())
	}
	wantMiss(t, e.get(t, "/b/2"))

	// Everything.
	fill()
	if code, _ := e.purge(t, "s3cret", `{"all":true}`); code != 200 {
		t.Fatal(code)
	}
	for _, p := range []string{"/a/1", "/a/2", "/b/2"} {
		wantMiss(t, e.get(t, p))
	}
}

// A store without a purge token cannot be purged remotely.
func TestPurgeNeedsConfiguredToken(t *testing.T) {
	o := newOrigin(t)
	e := startCache(t, o, "")
	if code, body := e.purge(t, "", `{"all":true}`); code != http.StatusForbidden || !strings.Contains(body, "purge_token") {
		t.Fatalf("%d %s", code, body)
	}
}
