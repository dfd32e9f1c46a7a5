package main

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// In the demo set-up the origin's pages come from the edge's cache, which
// says so in Cache-Status and Server-Timing, over TCP and HTTP/3 alike.
func TestDemoPagesServedFromCache(t *testing.T) {
	e := startEdge(t)
	h2 := e.tcpClient(t, false)
	h3, _ := e.h3Client(t)
	first, _ := get(t, h2, e.URL("/page/7"))
	if !strings.Contains(first.Header.Get("Cache-Status"), "fwd=miss; stored") {
		t.Fatalf("first request: Cache-Status %q", first.Header.Get("Cache-Status"))
	}
	// The page's two preload links are warmed in the background.
	waitFor(t, func() bool { return e.Origin.Requests.Load() == 3 })
	before := e.Origin.Requests.Load()
	for _, c := range []*http.Client{h2, h3} {
		resp, body := get(t, c, e.URL("/page/7"))
		cs := resp.Header.Get("Cache-Status")
		if !strings.HasPrefix(cs, "lastmile; hit") || !strings.Contains(string(body), "page 7") {
			t.Fatalf("%s: Cache-Status %q", resp.Proto, cs)
		}
		if !strings.Contains(resp.Header.Get("Server-Timing"), "cache;desc=hit") {
			t.Fatalf("%s: Server-Timing %q", resp.Proto, resp.Header.Get("Server-Timing"))
		}
		if resp.Header.Get("Surrogate-Key") != "" {
			t.Fatal("Surrogate-Key reached the client")
		}
	}
	if got := e.Origin.Requests.Load() - before; got != 0 {
		t.Fatalf("origin saw %d requests for cached pages", got)
	}
	// Private responses pass.
	resp, _ := get(t, h2, e.URL("/api/me"))
	if !strings.Contains(resp.Header.Get("Cache-Status"), "detail=no-store") {
		t.Fatalf("private API: Cache-Status %q", resp.Header.Get("Cache-Status"))
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	waitForWithin(t, 3*time.Second, cond)
}

func waitForWithin(t *testing.T, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met in %v", d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
