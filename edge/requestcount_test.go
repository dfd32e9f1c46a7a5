package main

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// lastmile_http_requests_total counts every request by protocol, whatever
// the route: here the site has no alt_svc, and each protocol's GETs, a
// POST with a length and a chunked POST are each counted once.
func TestRequestsCountedWithoutAltSvc(t *testing.T) {
	e := startEdgeWith(t, func(s string) string {
		out := strings.Replace(s, "\talt_svc 24h\n", "", 1)
		if out == s {
			t.Fatal("the default Caddyfile has no alt_svc line to remove")
		}
		return out
	})
	h3, _ := e.h3Client(t)
	clients := []struct {
		label  string
		client *http.Client
		proto  string
	}{
		{"h1", e.tcpClient(t, true), "HTTP/1.1"},
		{"h2", e.tcpClient(t, false), "HTTP/2.0"},
		{"h3", h3, "HTTP/3.0"},
	}
	counters := map[string]counter{}
	for _, c := range clients {
		counters[c.label] = e.counter(t, `lastmile_http_requests_total{protocol="`+c.label+`"}`)
	}
	const perProtocol = 5
	for _, c := range clients {
		for _, path := range []string{"/", "/no-such-page", "/echo"} {
			resp, _ := get(t, c.client, e.URL(path))
			if resp.Proto != c.proto {
				t.Fatalf("%s: Proto = %q, want %q", c.label, resp.Proto, c.proto)
			}
			if alt := resp.Header.Get("Alt-Svc"); alt != "" {
				t.Fatalf("%s: Alt-Svc %q from a route without alt_svc", c.label, alt)
			}
		}
		// A body of known length, then one of unknown length (chunked
		// on HTTP/1.1): the next request on the connection follows it.
		post(t, c.client, e.URL("/echo"), bytes.NewReader(bytes.Repeat([]byte("x"), 10<<10)))
		post(t, c.client, e.URL("/echo"), io.MultiReader(strings.NewReader("chunked "), strings.NewReader("body")))
	}
	for _, c := range clients {
		if got := counters[c.label].delta(t); got != perProtocol {
			t.Errorf("requests_total{protocol=%q} grew by %v, want %v", c.label, got, perProtocol)
		}
	}
}

func post(t *testing.T, c *http.Client, url string, body io.Reader) {
	t.Helper()
	resp, err := c.Post(url, "text/plain", body)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatalf("POST %s: reading body: %v", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: status %d", url, resp.StatusCode)
	}
}
