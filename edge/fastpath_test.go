package main

import (
	"net/http"
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
