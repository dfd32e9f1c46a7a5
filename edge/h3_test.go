package main

import (
	"encoding/json"
	"net/http"
	"testing"
)

// An ordinary HTTP/3 request goes through Caddy's whole route (alt_svc,
// reverse_proxy) to the demo origin.
func TestHTTP3RequestThroughCaddyRoute(t *testing.T) {
	e := startEdge(t)
	c, _ := e.h3Client(t)
	resp, body := get(t, c, e.URL("/echo"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if resp.Proto != "HTTP/3.0" {
		t.Fatalf("Proto = %q, want HTTP/3.0", resp.Proto)
	}
	var echo struct {
		Headers map[string][]string `json:"headers"`
	}
	if err := json.Unmarshal(body, &echo); err != nil {
		t.Fatal(err)
	}
	// reverse_proxy names the protocol it received in Via.
	if via := echo.Headers["Via"]; len(via) != 1 || via[0] != "3.0 Caddy" {
		t.Fatalf("origin saw Via %q, want the edge to have received HTTP/3.0", via)
	}
	if got := e.Origin.Requests.Load(); got != 1 {
		t.Fatalf("origin saw %d requests, want 1", got)
	}
}

// Alt-Svc advertises h3 on this port over HTTP/1.1 and HTTP/2, and never
// over HTTP/3.
func TestAltSvcOnTCPResponsesOnly(t *testing.T) {
	e := startEdge(t)
	counters := map[string]counter{}
	for _, proto := range []string{"h1", "h2", "h3"} {
		counters[proto] = e.counter(t, `lastmile_http_requests_total{protocol="`+proto+`"}`)
	}
	want := `h3=":` + e.Port + `"; ma=86400`
	for _, tc := range []struct {
		name   string
		client *http.Client
		proto  string
	}{
		{"h1", e.tcpClient(t, true), "HTTP/1.1"},
		{"h2", e.tcpClient(t, false), "HTTP/2.0"},
	} {
		resp, _ := get(t, tc.client, e.URL("/"))
		if resp.Proto != tc.proto {
			t.Fatalf("%s: Proto = %q", tc.name, resp.Proto)
		}
		if got := resp.Header.Values("Alt-Svc"); len(got) != 1 || got[0] != want {
			t.Fatalf("%s: Alt-Svc = %q, want %q", tc.name, got, want)
		}
		// Errors carry it too: the handler runs first.
		resp, _ = get(t, tc.client, e.URL("/no-such-page"))
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Alt-Svc") != want {
			t.Fatalf("%s: 404 response: status %d, Alt-Svc %q", tc.name, resp.StatusCode, resp.Header.Get("Alt-Svc"))
		}
	}
	c, _ := e.h3Client(t)
	resp, _ := get(t, c, e.URL("/"))
	if resp.Proto != "HTTP/3.0" {
		t.Fatalf("Proto = %q", resp.Proto)
	}
	if got := resp.Header.Values("Alt-Svc"); len(got) != 0 {
		t.Fatalf("HTTP/3 response carries Alt-Svc %q", got)
	}
	for proto, want := range map[string]float64{"h1": 2, "h2": 2, "h3": 1} {
		if got := counters[proto].delta(t); got != want {
			t.Errorf("requests_total{%s} grew by %v, want %v", proto, got, want)
		}
	}
}
