// Package cachetests runs the public HTTP cache test suite (cache-tests.fyi,
// npm http-cache-tests, pinned in package.json) against edge_cache as a
// reverse-proxy cache: the suite's server is the origin, its command-line
// client asks through the edge, and the score is checked against a floor.
package cachetests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	_ "github.com/lastmile-edge/lastmile/modules/clienttcp"
	_ "github.com/lastmile-edge/lastmile/modules/httpcache"
)

// The floors: the score docs/CACHE-CONFORMANCE.md records. A change that
// loses a test fails here; one that gains raises them.
const (
	requiredFloor = 157
	optimalFloor  = 85
)

// suiteDir is where `npm ci` (make deps) puts the suite.
var suiteDir = filepath.Join("node_modules", "http-cache-tests")

type score struct {
	Required kindScore `json:"required"`
	Optimal  kindScore `json:"optimal"`
	Failures []struct {
		ID, Kind, Symbol, Detail string
	} `json:"failures"`
}

type kindScore struct {
	Passed int `json:"passed"`
	Total  int `json:"total"`
}

// TestCacheTestsSuite runs the whole suite through the edge and scores it.
// The results, in the suite's own format (comparable with cache-tests.fyi's
// results/*.json), go to $LASTMILE_CACHE_TESTS_OUT if set. With
// $LASTMILE_CACHE_TESTS_ID, it runs that one test and shows its exchanges.
func TestCacheTestsSuite(t *testing.T) {
	requireSuite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	originPort := startOrigin(t, ctx)
	port, adminPort := testcaddy.FreePort(t), testcaddy.FreePort(t)
	// The cache options and client_tcp of the default Caddyfile: the edge
	// as shipped, so hits on the suite's kept connections are answered
	// below net/http as they are there.
	testcaddy.Run(t, fmt.Sprintf(`{
	admin 127.0.0.1:%s
	auto_https off
	persist_config off
	servers {
		listener_wrappers {
			client_tcp
		}
	}
}
http://127.0.0.1:%s {
	edge_cache {
		stale_if_error 1m
		refresh_ahead 3 1m 10%%
		prefetch
	}
	reverse_proxy 127.0.0.1:%s
}
`, adminPort, port, originPort))

	cli := exec.CommandContext(ctx, "node", "--no-warnings", "cli.mjs")
	cli.Dir = suiteDir
	// cli.mjs reads npm's config variables; an empty id runs every test,
	// one id runs that test and dumps its requests and responses.
	id := os.Getenv("LASTMILE_CACHE_TESTS_ID")
	cli.Env = append(os.Environ(), "npm_config_base=http://127.0.0.1:"+port, "npm_package_config_id="+id)
	var stderr bytes.Buffer
	cli.Stderr = &stderr
	results, err := cli.Output()
	if id != "" {
		t.Skipf("%s only, not scored:\n%s%s", id, results, stderr.Bytes())
	}
	if err != nil || !json.Valid(results) {
		t.Fatalf("the suite's client: %v\n%s\n%s", err, stderr.Bytes(), results)
	}
	out := os.Getenv("LASTMILE_CACHE_TESTS_OUT")
	if out == "" {
		out = filepath.Join(t.TempDir(), "lastmile.json")
	}
	if err := os.WriteFile(out, results, 0o644); err != nil {
		t.Fatal(err)
	}

	scored, err := exec.CommandContext(ctx, "node", "score.mjs", out).Output()
	if err != nil {
		t.Fatalf("scoring %s: %v", out, err)
	}
	var s score
	if err := json.Unmarshal(scored, &s); err != nil {
		t.Fatalf("scoring %s: %v\n%s", out, err, scored)
	}
	for _, f := range s.Failures {
		t.Logf("%s %-8s %s: %s", f.Symbol, f.Kind, f.ID, f.Detail)
	}
	answered := testcaddy.Metric(t, "127.0.0.1:"+adminPort, "lastmile_client_tcp_answered_hits_total")
	t.Logf("cache-tests: required %d/%d, optimal %d/%d, %v hits answered below net/http (results: %s)",
		s.Required.Passed, s.Required.Total, s.Optimal.Passed, s.Optimal.Total, answered, out)
	if answered == 0 {
		t.Error("no hit was answered below net/http: the suite did not take client_tcp's path")
	}
	if s.Required.Passed < requiredFloor || s.Optimal.Passed < optimalFloor {
		t.Fatalf("below the floor: required %d (floor %d), optimal %d (floor %d)",
			s.Required.Passed, requiredFloor, s.Optimal.Passed, optimalFloor)
	}
}

// requireSuite skips without node or the installed suite, except in CI,
// whose test command (make deps) installs both.
func requireSuite(t *testing.T) {
	t.Helper()
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node"
	} else if _, err := os.Stat(filepath.Join(suiteDir, "package.json")); err != nil {
		missing = "modules/httpcache/cachetests/node_modules (npm ci)"
	}
	if missing == "" {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is missing; the test command installs it", missing)
	}
	t.Skipf("%s is missing; run the README's test command, which installs it", missing)
}

// startOrigin runs the suite's server on a free port and returns the port
// once it accepts connections.
func startOrigin(t *testing.T, ctx context.Context) string {
	t.Helper()
	port := testcaddy.FreePort(t)
	srv := exec.CommandContext(ctx, "node", "--no-warnings", "server/server.mjs")
	srv.Dir = suiteDir
	srv.Env = append(os.Environ(), "npm_config_protocol=http", "npm_config_port="+port,
		"npm_config_pidfile="+filepath.Join(t.TempDir(), "server.pid"))
	var logs bytes.Buffer
	srv.Stdout, srv.Stderr = &logs, &logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = srv.Process.Kill()
		_ = srv.Wait()
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err == nil {
			c.Close()
			return port
		}
		if time.Now().After(deadline) {
			t.Fatalf("the suite's server did not listen on %s: %v\n%s", port, err, logs.Bytes())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
