package httpcache

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// pathShapes are request targets that differ only in how the path is
// written: encoded slashes in either case, parameters, dot-segments
// plain and encoded, case, doubled and trailing slashes, characters that
// must be encoded sent raw.
var pathShapes = []string{
	"/a/b", "/a%2Fb", "/a%2fb", "/a;b", "/a;b/c", "/a/./b", "/a/../b", "/b", "/a/%2e%2e/b", "/a/.%2E/b",
	"/A/b", "/a//b", "/a/b/", "/a%20b", "/a+b", "/a|b", "/a%7Cb", "/a%7cb", "/%61/b", "/a/b?x=1", "/a/b?x=%31",
	"/static/..%2Faccount", "/static/../account", "/account",
}

// A key never makes two origin resources collide: two request targets
// share a stored response only if the origin would have been asked the
// same thing for both. The edge forwards the path as received (escaped
// form kept, nothing cleaned, Go's canonical re-encoding of characters
// that had to be encoded), and the key is that forwarded form.
func TestPathKeyNeverCollides(t *testing.T) {
	// What the origin is asked for each target: it answers with the
	// request target it saw, uncacheable first, then cacheable.
	var cacheable atomic.Bool
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cacheable.Load() {
			w.Header().Set("Cache-Control", "max-age=60")
		} else {
			w.Header().Set("Cache-Control", "no-store")
		}
		w.Write([]byte(r.RequestURI))
	}))
	t.Cleanup(o.Close)
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			cacheable.Store(false)
			e := startTLSCache(t, hostPort(o.URL), "")
			forwarded := map[string]string{}
			var table strings.Builder
			for _, target := range pathShapes {
				r := e.get(t, p.name, p.proto, target)
				if r.status != http.StatusOK {
					t.Fatalf("%s: status %d", target, r.status)
				}
				forwarded[target] = r.body
				table.WriteString("\n\t" + target + " -> " + r.body)
			}
			t.Logf("the origin is asked for:%s", table.String())
			for _, pair := range [][2]string{{"/a/b", "/a%2Fb"}, {"/a%2Fb", "/a%2fb"}, {"/a/../b", "/b"}, {"/static/..%2Faccount", "/account"}} {
				if forwarded[pair[0]] == forwarded[pair[1]] {
					t.Errorf("%s and %s reach the origin alike (%s): the edge normalised a path", pair[0], pair[1], forwarded[pair[0]])
				}
			}

			cacheable.Store(true)
			e = startTLSCache(t, hostPort(o.URL), "")
			for _, target := range pathShapes {
				r := e.get(t, p.name, p.proto, target)
				if r.body != forwarded[target] {
					t.Errorf("%s got the response for %s (Cache-Status %q): two resources share a key", target, r.body, r.cacheStatus())
				}
			}
			for _, target := range pathShapes {
				wantHit(t, e.get(t, p.name, p.proto, target))
			}
		})
	}
}
