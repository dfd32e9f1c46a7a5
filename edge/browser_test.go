package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// browserResult is what web-client/test/edge/h3-webtransport.mjs reports.
type browserResult struct {
	Statuses []struct {
		URL    string `json:"url"`
		Status int    `json:"status"`
	} `json:"statuses"`
	Navigation struct {
		NextHopProtocol string `json:"nextHopProtocol"`
		Status          int    `json:"status"`
	} `json:"navigation"`
	ResourceProtocols []string `json:"resourceProtocols"`
	Echo              struct {
		Headers map[string][]string `json:"headers"`
	} `json:"echo"`
	WebTransport         wtResult `json:"webTransport"`
	CertHashWebTransport wtResult `json:"certHashWebTransport"`
}

type wtResult struct {
	Stream   string `json:"stream"`
	Datagram string `json:"datagram"`
	Error    string `json:"error"`
}

// requireBrowser finds Chromium and the test's node modules. The README's
// test command installs both; a bare `go test` without them skips, but
// never in CI.
func requireBrowser(t *testing.T) string {
	t.Helper()
	script := filepath.Join("..", "web-client", "test", "edge", "h3-webtransport.mjs")
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node"
	} else if _, err := os.Stat(filepath.Join("..", "web-client", "node_modules", "playwright-core")); err != nil {
		missing = "web-client/node_modules (npm ci)"
	} else if _, err := os.Stat(chromiumPath()); err != nil {
		missing = "chromium"
	}
	if missing != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing; the test command installs it", missing)
		}
		t.Skipf("%s is missing; run the README's test command, which installs it", missing)
	}
	return script
}

func chromiumPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

// Chromium loads demo pages over HTTP/3 (the second page's cached
// subresources encoded against the QPACK table Chromium offers) and opens
// WebTransport sessions, with a forced-QUIC certificate allowance and with
// serverCertificateHashes.
func TestChromiumHTTP3AndWebTransport(t *testing.T) {
	script := requireBrowser(t)
	var plainOrigin string
	e := startEdgeWith(t, func(s string) string {
		// The plain-http page lives on the demo origin, whose address is
		// known only once it runs: the env var is read when adapting.
		return strings.Replace(s, wtLimitLine, wtLimitLine+"\n\t\torigins {$LASTMILE_TEST_PLAIN_ORIGIN}", 1)
	}, func(origin string) {
		plainOrigin = "http://" + origin
		t.Setenv("LASTMILE_TEST_PLAIN_ORIGIN", plainOrigin)
	})
	opened := e.counter(t, `lastmile_webtransport_sessions_opened_total`)
	h3Requests := e.counter(t, `lastmile_http_requests_total{protocol="h3"}`)
	tableHits := e.counter(t, `lastmile_cache_http3_fast_hits_total{qpack_table="dynamic"}`)
	staticHits := e.counter(t, `lastmile_cache_http3_fast_hits_total{qpack_table="static"}`)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(),
		"EDGE_PORT="+e.Port,
		"EDGE_SPKI="+e.SPKIHash,
		"CERT_HASH="+hex.EncodeToString(e.CertHash),
		"PLAIN_URL="+plainOrigin+"/echo",
		"CHROMIUM="+chromiumPath(),
	)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("browser script: %v\n%s", err, out)
	}
	var res browserResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("browser output: %v\n%s", err, out)
	}
	t.Logf("browser saw: %s", out)

	if res.Navigation.NextHopProtocol != "h3" || res.Navigation.Status != 200 {
		t.Errorf("navigation over %q with status %d, want h3 and 200", res.Navigation.NextHopProtocol, res.Navigation.Status)
	}
	for _, p := range res.ResourceProtocols {
		if p != "h3" {
			t.Errorf("a subresource came over %q", p)
		}
	}
	if via := res.Echo.Headers["Via"]; len(via) != 1 || via[0] != "3.0 Caddy" {
		t.Errorf("the edge received the page's fetch as %q, want HTTP/3.0", via)
	}
	if len(res.Statuses) < 10 {
		t.Errorf("only %d responses seen", len(res.Statuses))
	}
	for _, s := range res.Statuses {
		if s.Status == 425 {
			t.Errorf("Chromium got 425 Too Early for %s", s.URL)
		}
	}
	for name, wt := range map[string]wtResult{"forced QUIC": res.WebTransport, "serverCertificateHashes": res.CertHashWebTransport} {
		if wt.Error != "" || wt.Stream != "stream from chromium" || wt.Datagram != "datagram from chromium" {
			t.Errorf("WebTransport (%s): %+v", name, wt)
		}
	}
	if got := opened.delta(t); got != 2 {
		t.Errorf("sessions_opened_total grew by %v, want 2", got)
	}
	// Chromium offers a QPACK table: the second page's cached subresources
	// are encoded against it (their fields given to quic-go as a list).
	if table, static := tableHits.delta(t), staticHits.delta(t); table < 1 {
		t.Errorf("HTTP/3 fast hits: %v with the QPACK dynamic table, %v static; want some with the table", table, static)
	}
	if got, want := h3Requests.delta(t), float64(len(res.Statuses)); got < want {
		t.Errorf("requests_total{h3} grew by %v, want at least the %v responses the browser saw", got, want)
	}
}
