package httpcache

import (
	"bytes"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	"github.com/lastmile-edge/lastmile/internal/testcert"
	_ "github.com/lastmile-edge/lastmile/modules/wtsession" // webtransport before edge_cache
)

// Two servers of one edge share one origin: "fast" reaches edge_cache past
// alt_svc and a WebTransport route, which pass a hit through, so its hits
// take the fast path; "slow" has the same plus a `vars` handler before
// them, which changes nothing in the response but keeps every request on
// Caddy's route. The same requests over HTTP/1.1, HTTP/2 and HTTP/3 must
// get the same status, fields (less Date, Age, the edge's duration, the
// ttl and Alt-Svc's port, which differ by clock and server) and body from
// both.
func TestFastPathAnswersAsTheRoute(t *testing.T) {
	o := newOrigin(t)
	// The same bytes on every fetch, so both servers store the same.
	o.handle("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", "Mon, 02 Jan 2006 15:04:05 GMT")
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("page body"))
	})
	o.handle("/vary", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		w.Header().Set("Vary", "Accept-Language")
		_, _ = w.Write([]byte("in " + r.Header.Get("Accept-Language")))
	})
	// Shapes the HTTP/3 fields encoded once per entry handle apart
	// (fastpath_http3head.go): the writer's sniffed Content-Type and its
	// Content-Length for a body that came without one, stored
	// Cache-Status and Server-Timing members before the hit's, stripped
	// fields, a stored Server and Date.
	o.handle("/sniffed", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		w.Header()["Content-Type"] = nil // no sniffing by the origin
		w.(http.Flusher).Flush()         // no Content-Length: chunked
		_, _ = w.Write([]byte("<html>sniffed</html>"))
	})
	o.handle("/tiered", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", `max-age=600, no-cache="X-Secret, Server"`)
		w.Header().Add("Cache-Status", "a; hit")
		w.Header().Add("Cache-Status", "b; fwd=miss")
		w.Header().Set("Server-Timing", "db;dur=3")
		w.Header().Set("Server", "origin/1")
		w.Header().Set("X-Secret", "s")
		w.Header().Set("Age", "7")
		_, _ = w.Write([]byte("tiered"))
	})
	// A body the HTTP/3 writer does not buffer (no Content-Length, no
	// sniffing), a coded one (no sniffing), a stored 404, and a response
	// without Date (the hit adds one).
	o.handle("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		w.(http.Flusher).Flush() // no Content-Length: chunked
		_, _ = w.Write(bytes.Repeat([]byte("<html>big</html>"), 512))
	})
	o.handle("/coded", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		w.Header().Set("Content-Encoding", "br")
		w.Header()["Content-Type"] = nil
		w.(http.Flusher).Flush()
		_, _ = w.Write([]byte("not really brotli"))
	})
	o.handle("/gone", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("gone"))
	})
	o.handle("/undated", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		w.Header()["Date"] = nil
		_, _ = w.Write([]byte("undated"))
	})
	c := testcert.Write(t)
	fastPort, slowPort, admin := testcaddy.FreeTCPAndUDPPort(t), testcaddy.FreeTCPAndUDPPort(t), testcaddy.FreePort(t)
	origin := hostPort(o.URL)
	testcaddy.Run(t, tlsEdgeGlobals(admin)+fmt.Sprintf(`https://localhost:%s {
	tls %s %s
	alt_svc
	webtransport /wt/echo {
		session echo
	}
	edge_cache
	reverse_proxy %s
}
https://localhost:%s {
	tls %s %s
	route {
		vars slow yes
		alt_svc
		webtransport /wt/echo {
			session echo
		}
		edge_cache
		reverse_proxy %s
	}
}
`, fastPort, c.CertFile, c.KeyFile, origin, slowPort, c.CertFile, c.KeyFile, origin))
	fast := newTLSEdge(t, fastPort, "", c.Pool).testEdges()
	slow := newTLSEdge(t, slowPort, "", c.Pool).testEdges()
	adminURL := "127.0.0.1:" + admin

	requests := []struct {
		name, method, path string
		header             []string
	}{
		{"get", "GET", "/page", nil},
		{"head", "HEAD", "/page", nil},
		{"if-none-match", "GET", "/page", []string{"If-None-Match", `"v1"`}},
		{"if-modified-since", "GET", "/page", []string{"If-Modified-Since", "Mon, 02 Jan 2006 15:04:05 GMT"}},
		{"range", "GET", "/page", []string{"Range", "bytes=0-3"}},
		{"no-cache", "GET", "/page", []string{"Cache-Control", "no-cache"}},
		{"max-age=0", "GET", "/page", []string{"Cache-Control", "max-age=0"}},
		{"min-fresh", "GET", "/page", []string{"Cache-Control", "min-fresh=3600"}},
		{"pragma", "GET", "/page", []string{"Pragma", "no-cache"}},
		{"authorization", "GET", "/page", []string{"Authorization", "Bearer x"}},
		{"vary-en", "GET", "/vary", []string{"Accept-Language", "en"}},
		{"vary-de", "GET", "/vary", []string{"Accept-Language", "de"}},
		{"only-if-cached-miss", "GET", "/absent", []string{"Cache-Control", "only-if-cached"}},
		{"underscore-field", "GET", "/page", []string{"X_Forwarded_For", "1.2.3.4"}},
		{"sniffed", "GET", "/sniffed", nil},
		{"sniffed-head", "HEAD", "/sniffed", nil},
		{"tiered", "GET", "/tiered", nil},
		{"tiered-head", "HEAD", "/tiered", nil},
		{"big", "GET", "/big", nil},
		{"big-head", "HEAD", "/big", nil},
		{"coded", "GET", "/coded", nil},
		{"gone", "GET", "/gone", nil},
		{"gone-head", "HEAD", "/gone", nil},
		{"undated", "GET", "/undated", nil},
	}
	// Store every response on both servers first.
	for _, p := range []string{"/page", "/vary", "/sniffed", "/tiered", "/big", "/coded", "/gone", "/undated"} {
		for _, lang := range []string{"en", "de"} {
			fast["h1"].get(t, p, "Accept-Language", lang)
			slow["h1"].get(t, p, "Accept-Language", lang)
		}
	}
	for _, proto := range []string{"h1", "h2", "h3"} {
		for _, rq := range requests {
			t.Run(proto+"/"+rq.name, func(t *testing.T) {
				before := testcaddy.Metric(t, adminURL, "lastmile_cache_fast_hits_total")
				s := slow[proto].do(t, rq.method, rq.path, rq.header...)
				if got := testcaddy.Metric(t, adminURL, "lastmile_cache_fast_hits_total"); got != before {
					t.Fatalf("the slow server's request took the fast path")
				}
				f := fast[proto].do(t, rq.method, rq.path, rq.header...)
				if s.status != f.status || s.body != f.body {
					t.Fatalf("fast %d %q, route %d %q", f.status, f.body, s.status, s.body)
				}
				if fh, sh := comparable(f.header), comparable(s.header); !slices.Equal(fh, sh) {
					t.Fatalf("fields differ:\nfast  %q\nroute %q", fh, sh)
				}
			})
		}
	}
	// The plain hit took the fast path on the fast server.
	for _, proto := range []string{"h1", "h2", "h3"} {
		before := testcaddy.Metric(t, adminURL, "lastmile_cache_fast_hits_total")
		resp := fast[proto].get(t, "/page")
		wantHit(t, resp)
		want := []string{`h3=":` + fastPort + `"; ma=86400`} // its own port, over TCP only
		if proto == "h3" {
			want = nil
		}
		if alt := resp.header.Values("Alt-Svc"); !slices.Equal(alt, want) {
			t.Errorf("%s: Alt-Svc %q, want %q", proto, alt, want)
		}
		if got := testcaddy.Metric(t, adminURL, "lastmile_cache_fast_hits_total"); got != before+1 {
			t.Errorf("%s: fast hits went from %v to %v over a hit, want +1", proto, before, got)
		}
	}
}

var movingParam = regexp.MustCompile(`ttl=-?\d+|dur=[\d.]+|=":\d+"`)

// comparable lists the fields that do not move with the clock.
func comparable(h http.Header) []string {
	var out []string
	for k, vs := range h {
		switch k {
		case "Date", "Age":
			// Their values move with the clock; how many there are does not.
			out = append(out, k+": "+strconv.Itoa(len(vs)))
			continue
		}
		for _, v := range vs {
			out = append(out, k+": "+movingParam.ReplaceAllString(v, ""))
		}
	}
	slices.Sort(out)
	return out
}
