package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Chromium loads demo pages through the edge over HTTP/3 and HTTP/2; the
// snippet the edge injected sends beacons by sendBeacon and as a
// WebTransport datagram, and the edge's metrics show those page views with
// their protocol and cache labels.
func TestChromiumBeaconsBecomeMetrics(t *testing.T) {
	requireBrowser(t)
	script := filepath.Join("..", "web-client", "test", "edge", "rum-beacons.mjs")
	e := startEdge(t)
	series := map[string]counter{}
	for _, s := range []string{
		`lastmile_rum_beacons_total{transport="http"}`,
		`lastmile_rum_beacons_total{transport="webtransport"}`,
	} {
		series[s] = e.counter(t, s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(), "EDGE_PORT="+e.Port, "EDGE_SPKI="+e.SPKIHash, "CHROMIUM="+chromiumPath())
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("browser script: %v\n%s", err, out)
	}
	var res struct {
		H3, H2 struct {
			Protocol string `json:"protocol"`
			Snippet  bool   `json:"snippet"`
		}
		WebTransport struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		} `json:"webTransport"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Logf("browser saw: %s", out)
	if res.H3.Protocol != "h3" || res.H2.Protocol != "h2" || !res.H3.Snippet || !res.H2.Snippet || !res.WebTransport.OK {
		t.Fatalf("pages: %+v", res)
	}
	waitFor(t, func() bool {
		return series[`lastmile_rum_beacons_total{transport="http"}`].delta(t) >= 2 &&
			series[`lastmile_rum_beacons_total{transport="webtransport"}`].delta(t) >= 1
	})
	resp, err := http.Get("http://" + e.AdminAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, proto := range []string{"h3", "h2"} {
		re := regexp.MustCompile(`(?m)^lastmile_rum_page_views_total\{browser="chrome",cache="(hit|stale|revalidated|miss)",conn="(new|reused)",device="desktop",nav="navigate",protocol="` + proto + `",region="unknown"\} [1-9]`)
		if !re.Match(body) {
			t.Errorf("no %s page view with a cache label in:\n%s", proto, grepLines(string(body), "lastmile_rum_page_views_total"))
		}
	}
}

func grepLines(s, prefix string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
