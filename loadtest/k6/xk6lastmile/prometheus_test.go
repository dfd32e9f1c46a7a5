package xk6lastmile_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestPrometheusRemoteWrite sends a run's metrics, ours among k6's, to a
// real Prometheus through k6's experimental-prometheus-rw output.
func TestPrometheusRemoteWrite(t *testing.T) {
	prom := startPrometheus(t)
	e := startEdge(t)
	e.runWithEnv(t, []string{"K6_PROMETHEUS_RW_SERVER_URL=" + prom + "/api/v1/write"},
		"connections.js", "-o", "experimental-prometheus-rw")
	// 2 VUs x 4 iterations x 2 requests, by url, as in k6's own metrics.
	for query, want := range map[string]float64{
		`sum(k6_lastmile_h3_reqs_total)`:                        16,
		`count(k6_lastmile_h3_reqs_total{proto="HTTP/3.0"})`:    2,
		`max(k6_lastmile_h3_req_failed_rate)`:                   0,
		`count(k6_lastmile_h3_req_duration_p99{scenario="h3"})`: 2,
	} {
		if got := promQuery(t, prom, query); got != want {
			t.Errorf("%s = %v, want %v", query, got, want)
		}
	}
}

// startPrometheus runs Debian's prometheus (make deps installs it) with
// its remote-write receiver on, and returns its base URL.
func startPrometheus(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal("prometheus is not installed: run make deps (apt-get install prometheus)")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global:\n  scrape_interval: 15s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--web.enable-remote-write-receiver")
	startProcess(t, cmd, filepath.Join(dir, "prometheus.log"))
	base := "http://" + addr
	for deadline := time.Now().Add(20 * time.Second); ; {
		if resp, err := http.Get(base + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("prometheus not ready in 20 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// promQuery evaluates an instant query that yields one number.
func promQuery(t *testing.T, base, query string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if body.Status != "success" || len(body.Data.Result) != 1 {
		t.Fatalf("%s: %s %s, %d results", query, body.Status, body.Error, len(body.Data.Result))
	}
	s, _ := body.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
