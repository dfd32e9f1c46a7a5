package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The shipped Caddyfile's site gets the fast hit path: alt_svc and the
// WebTransport routes before edge_cache pass a hit through, and client_tcp's
// hidden TLS state is restored. Hits over HTTP/1.1, HTTP/2 and HTTP/3 are
// answered on it, with the Alt-Svc that alt_svc adds over TCP. The path is
// stored for a year, so no hit is due for refresh-ahead, which the fast
// path leaves to the route.
func TestDefaultCaddyfileHitsTakeTheFastPath(t *testing.T) {
	e := startEdge(t)
	h1, h2 := e.tcpClient(t, true), e.tcpClient(t, false)
	h3, _ := e.h3Client(t)
	get(t, h2, e.URL("/static/app.css"))
	fast := e.counter(t, "lastmile_cache_fast_hits_total")
	for _, c := range []struct {
		client *http.Client
		altSvc bool
	}{{h1, true}, {h2, true}, {h3, false}} {
		resp, body := get(t, c.client, e.URL("/static/app.css"))
		if cs := resp.Header.Get("Cache-Status"); !strings.HasPrefix(cs, "lastmile; hit") || len(body) == 0 {
			t.Fatalf("%s: Cache-Status %q, %d bytes", resp.Proto, cs, len(body))
		}
		if alt := resp.Header.Get("Alt-Svc"); (alt != "") != c.altSvc {
			t.Fatalf("%s: Alt-Svc %q", resp.Proto, alt)
		}
	}
	if got := fast.delta(t); got != 3 {
		t.Fatalf("fast_hits_total grew by %v for 3 hits, want 3", got)
	}
}

// With the default Caddyfile (client_tcp after tls), HTTP/1.1 hits on a
// kept connection are answered by client_tcp below net/http, over TLS,
// with the fields the route adds (alt_svc's Alt-Svc, which reads the
// connection's local port) and the scheme's cache key.
func TestDefaultCaddyfileHTTP1HitsAnsweredBelowNetHTTP(t *testing.T) {
	e := startEdge(t)
	h1 := e.tcpClient(t, true)
	get(t, h1, e.URL("/static/app.css"))
	answered := e.counter(t, "lastmile_client_tcp_answered_hits_total")
	// A connection's first request is net/http's, and the one after a
	// request net/http answered may be too (its background read).
	for range 100 {
		resp, body := get(t, h1, e.URL("/static/app.css"))
		if cs := resp.Header.Get("Cache-Status"); !strings.HasPrefix(cs, "lastmile; hit") || len(body) == 0 || resp.Header.Get("Alt-Svc") == "" {
			t.Fatalf("Cache-Status %q, Alt-Svc %q, %d bytes", cs, resp.Header.Get("Alt-Svc"), len(body))
		}
		if answered.delta(t) > 0 {
			return
		}
	}
	t.Fatal("no HTTP/1.1 hit answered below net/http in 100")
}

// Access logs and Caddy's HTTP metrics see every request: a server that has
// either gets no fast hit path (not even client_tcp's answers below
// net/http), so each hit over HTTP/1.1, HTTP/2 and HTTP/3 goes through
// Caddy's handler chain and is logged or counted there.
func TestObservedServersSeeEveryHit(t *testing.T) {
	accessLog := filepath.Join(t.TempDir(), "access.log")
	for _, c := range []struct {
		name string
		edit func(s string) string
		seen func(t *testing.T, e *testEdge) int
	}{
		{"access log", withAccessLog(accessLog), accessLogged(accessLog, "/static/app.css")},
		{"http metrics", func(s string) string {
			return strings.Replace(s, "\tskip_install_trust", "\tmetrics\n\tskip_install_trust", 1)
		}, siteRequestsCounted},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := startEdgeWith(t, c.edit)
			h1, h2 := e.tcpClient(t, true), e.tcpClient(t, false)
			h3, _ := e.h3Client(t)
			base := c.seen(t, e) // Caddy's metrics outlive an edge in this process
			seen := func() int { return c.seen(t, e) - base }
			get(t, h2, e.URL("/static/app.css"))
			waitFor(t, func() bool { return seen() == 1 })
			fast := e.counter(t, "lastmile_cache_fast_hits_total")
			answered := e.counter(t, "lastmile_client_tcp_answered_hits_total")
			const perProtocol = 20
			for _, client := range []*http.Client{h1, h2, h3} {
				for range perProtocol {
					resp, _ := get(t, client, e.URL("/static/app.css"))
					if cs := resp.Header.Get("Cache-Status"); !strings.HasPrefix(cs, "lastmile; hit") {
						t.Fatalf("%s: Cache-Status %q", resp.Proto, cs)
					}
				}
			}
			want := 1 + 3*perProtocol
			waitFor(t, func() bool { return seen() >= want })
			if got := seen(); got != want {
				t.Fatalf("%d requests seen, want %d", got, want)
			}
			if f, a := fast.delta(t), answered.delta(t); f != 0 || a != 0 {
				t.Fatalf("fast hits grew by %v and client_tcp's answers by %v on an observed server", f, a)
			}
		})
	}
}

// withAccessLog adds an access log in JSON, written to path, to the site.
func withAccessLog(path string) func(string) string {
	return func(s string) string {
		return strings.Replace(s, "\talt_svc 24h", "\tlog {\n\t\toutput file "+path+"\n\t\tformat json\n\t}\n\talt_svc 24h", 1)
	}
}

// accessLogged counts the entries for uri in the access log at path.
func accessLogged(path, uri string) func(t *testing.T, e *testEdge) int {
	entry := regexp.MustCompile(`"uri":"` + regexp.QuoteMeta(uri) + `"`)
	return func(t *testing.T, _ *testEdge) int {
		data, err := os.ReadFile(path)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return len(entry.FindAll(data, -1))
	}
}

// siteRequestsCounted sums the requests Caddy's metrics counted on the
// site's server (srv0: the site's routes are one subroute handler there).
func siteRequestsCounted(t *testing.T, e *testEdge) int {
	t.Helper()
	resp, err := http.Get("http://" + e.AdminAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	n := 0.0
	for _, m := range regexp.MustCompile(`(?m)^caddy_http_request_duration_seconds_count\{[^}]*server="srv0"[^}]*\} (\S+)$`).FindAllSubmatch(body, -1) {
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		n += v
	}
	return int(n)
}
