package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// TestDeployPrometheus runs deploy/'s Prometheus files against the real
// edge: promtool accepts the config and the rules and their unit tests
// pass; a real Prometheus started with deploy/prometheus.yml (pointed at
// this edge, scraping every second) scrapes it, evaluates every rule
// without error, and every panel of the Grafana dashboard shows data.
func TestDeployPrometheus(t *testing.T) {
	deploy := must(filepath.Abs("../deploy"))
	promtool := lookTool(t, "promtool")
	for _, args := range [][]string{
		{"check", "config", filepath.Join(deploy, "prometheus.yml")},
		{"test", "rules", filepath.Join(deploy, "lastmile-rules.test.yml")},
	} {
		if out, err := exec.Command(promtool, args...).CombinedOutput(); err != nil {
			t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}

	e := startEdge(t)
	h2 := e.tcpClient(t, false)
	h3, _ := e.h3Client(t)
	for _, path := range []string{"/page/1", "/page/1", "/static/app.css"} {
		get(t, h2, e.URL(path))
		get(t, h3, e.URL(path))
	}
	get(t, e.tcpClient(t, true), e.URL("/page/2"))
	ctx := t.Context()
	if _, sess, err := e.wtDial(t, ctx, "/wt/echo", nil); err != nil {
		t.Fatal(err)
	} else {
		checkEcho(t, ctx, sess, "deploy")
		sess.CloseWithError(0, "")
	}
	e.postBeacon(t, h2, testBeacon)

	cfg := string(must(os.ReadFile(filepath.Join(deploy, "prometheus.yml"))))
	for old, repl := range map[string]string{
		"127.0.0.1:2019":           e.AdminAddr,
		"scrape_interval: 15s":     "scrape_interval: 1s",
		"evaluation_interval: 15s": "evaluation_interval: 1s",
		"- lastmile-rules.yml":     "- " + filepath.Join(deploy, "lastmile-rules.yml"),
	} {
		if !strings.Contains(cfg, old) {
			t.Fatalf("deploy/prometheus.yml no longer has %q", old)
		}
		cfg = strings.ReplaceAll(cfg, old, repl)
	}
	prom := startPrometheus(t, cfg)
	// Three scrapes make rates; the rules run every second.
	waitForWithin(t, 20*time.Second, func() bool {
		return len(promQuery(t, prom, `count_over_time(up{job="lastmile"}[1m]) >= 3`)) == 1
	})
	if up := promQuery(t, prom, `up{job="lastmile", pop="example-pop-1"}`); len(up) != 1 || up[0].Value[1] != "1" {
		t.Fatalf("up = %v, want the edge scraped with its pop label", up)
	}

	var rules struct {
		Data struct {
			Groups []struct {
				Rules []struct {
					Name, Health, LastError string
					LastEvaluation          time.Time
				}
			}
		}
	}
	waitForWithin(t, 10*time.Second, func() bool {
		promGet(t, prom+"/api/v1/rules", &rules)
		for _, g := range rules.Data.Groups {
			for _, r := range g.Rules {
				if r.LastEvaluation.IsZero() {
					return false
				}
			}
		}
		return len(rules.Data.Groups) == 2
	})
	for _, g := range rules.Data.Groups {
		for _, r := range g.Rules {
			if r.Health != "ok" {
				t.Errorf("rule %s: %s %s", r.Name, r.Health, r.LastError)
			}
		}
	}

	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(must(os.ReadFile(filepath.Join(deploy, "grafana", "lastmile.json"))), &dash); err != nil {
		t.Fatal(err)
	}
	queries := 0
	for _, p := range dash.Panels {
		withData := 0
		for _, target := range p.Targets {
			// Grafana's variables, as "All" and a short range.
			expr := strings.NewReplacer(`$pop`, `.*`, `$instance`, `.*`, `$__rate_interval`, `1m`).Replace(target.Expr)
			if len(promQuery(t, prom, expr)) > 0 {
				withData++
			}
			queries++
		}
		if len(p.Targets) > 0 && withData == 0 {
			t.Errorf("dashboard panel %q shows no data", p.Title)
		}
	}
	if queries < 20 {
		t.Errorf("ran %d dashboard queries, want the whole dashboard", queries)
	}
}

func lookTool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not installed: run make deps (apt-get install prometheus)", name)
	}
	return path
}

// startPrometheus runs Debian's prometheus with config and returns its
// base URL. (loadtest/k6 has its own: it is another Go module.)
func startPrometheus(t *testing.T, config string) string {
	t.Helper()
	bin := lookTool(t, "prometheus")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + testcaddy.FreePort(t)
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr)
	log := must(os.Create(filepath.Join(dir, "prometheus.log")))
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus log:\n%s", must(os.ReadFile(log.Name())))
		}
	})
	base := "http://" + addr
	waitForWithin(t, 20*time.Second, func() bool {
		resp, err := http.Get(base + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return base
}

type promSample struct {
	Metric map[string]string
	Value  [2]any
}

// promQuery runs an instant query; a query Prometheus refuses fails the
// test.
func promQuery(t *testing.T, base, query string) []promSample {
	t.Helper()
	var body struct {
		Status, Error string
		Data          struct{ Result []promSample }
	}
	promGet(t, base+"/api/v1/query?query="+url.QueryEscape(query), &body)
	if body.Status != "success" {
		t.Fatalf("%s: %s", query, body.Error)
	}
	return body.Data.Result
}

func promGet(t *testing.T, u string, into any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
		t.Fatal(err)
	}
}
