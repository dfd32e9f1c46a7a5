package httpcache

import (
	"strings"
	"testing"
)

// CDN-Cache-Control (RFC 9213) and Surrogate-Control rule the edge and are
// not forwarded to browsers, nor are the tag fields.
func TestTargetedFieldsTakePrecedence(t *testing.T) {
	o := newOrigin(t)
	o.respond("/cdn", 200, "Cache-Control", "no-cache, max-age=0", "CDN-Cache-Control", "max-age=60", "Surrogate-Key", "a b")
	o.respond("/surrogate", 200, "Cache-Control", "max-age=0", "Surrogate-Control", "max-age=60", "Cache-Tag", "x")
	o.respond("/cdn-nostore", 200, "Cache-Control", "max-age=60", "CDN-Cache-Control", "no-store")
	e := startCache(t, o, "")
	for _, p := range []string{"/cdn", "/surrogate"} {
		first := e.get(t, p)
		r := e.get(t, p)
		wantHit(t, r)
		for _, res := range []result{first, r} {
			for _, f := range []string{"CDN-Cache-Control", "Surrogate-Control", "Surrogate-Key", "Cache-Tag"} {
				if res.header.Get(f) != "" {
					t.Errorf("%s: %s forwarded to the browser", p, f)
				}
			}
		}
		if !strings.Contains(r.header.Get("Cache-Control"), "max-age=0") {
			t.Errorf("%s: the browser's Cache-Control was changed: %q", p, r.header.Get("Cache-Control"))
		}
	}
	e.get(t, "/cdn-nostore")
	wantMiss(t, e.get(t, "/cdn-nostore"))
}
