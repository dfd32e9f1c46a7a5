package httpcache

import (
	"net/http"
	"strings"
	"testing"
)

// When the origin drops the connection, stale-if-error (here the route's
// default) may answer with a stale entry, but not one whose response
// forbade serving it stale: must-revalidate, proxy-revalidate, no-cache,
// s-maxage (RFC 9111 sections 4.2.4, 5.2.2.2, 5.2.2.8, 5.2.2.4, 5.2.2.10).
// The client gets the error instead. Entries are stale as stored (Age).
func TestStaleForbiddenWhenOriginCloses(t *testing.T) {
	o := newOrigin(t)
	cases := map[string]bool{ // Cache-Control: may be served stale
		"max-age=60":                   true,
		"max-age=60, must-revalidate":  false,
		"max-age=60, proxy-revalidate": false,
		"max-age=60, no-cache":         false,
		"s-maxage=60":                  false,
	}
	paths := map[string]string{}
	for cc := range cases {
		path := "/" + strings.NewReplacer(" ", "", ",", "+", "=", "-").Replace(cc)
		paths[cc] = path
		o.handle(path, func(w http.ResponseWriter, r *http.Request) {
			if o.count(path) > 1 {
				conn, _, err := http.NewResponseController(w).Hijack()
				if err == nil {
					conn.Close()
				}
				return
			}
			w.Header().Set("Cache-Control", cc)
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("Age", "70") // 10 s stale: within the 1m
			w.Write([]byte("stored"))
		})
	}
	e := startCache(t, o, "stale_if_error 1m")
	for cc, staleOK := range cases {
		path := paths[cc]
		e.get(t, path)
		r := e.get(t, path)
		// At least 2: the proxy's transport may retry once on a new
		// connection when a reused one closes before any answer (RFC
		// 9112 section 9.3.1).
		if o.count(path) < 2 {
			t.Fatalf("%s: origin saw %d requests: no revalidation", cc, o.count(path))
		}
		switch {
		case staleOK && (r.status != http.StatusOK || r.body != "stored"):
			t.Errorf("%s: %d %q, want the stale entry", cc, r.status, r.body)
		case !staleOK && (r.status != http.StatusBadGateway || r.body == "stored"):
			t.Errorf("%s: %d %q (Cache-Status %q), want 502", cc, r.status, r.body, r.cacheStatus())
		}
	}
}
