package xk6lastmile_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// startLiveEdge runs loadtest/cmd/liveorigin and the edge of
// loadtest/live.Caddyfile in front of it, for the scenarios of a site's
// own WebTransport application and live updates.
func startLiveEdge(t *testing.T) *edge {
	t.Helper()
	root, bin := buildBinaries(t, "./loadtest/cmd/liveorigin")

	dir := t.TempDir()
	origin := exec.Command(filepath.Join(bin, "liveorigin"), "-dir", dir, "-channels", "news", "-every", "100ms")
	out, err := origin.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	origin.Stderr = os.Stderr
	if err := origin.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = origin.Process.Kill(); _ = origin.Wait() })
	var where struct{ WebTransport, SSE, CA string }
	if err := json.NewDecoder(bufio.NewReader(out)).Decode(&where); err != nil {
		t.Fatalf("liveorigin's address line: %v", err)
	}

	https, http, admin := freePort(t), freePort(t), freePort(t)
	cmd := exec.Command(filepath.Join(bin, "lastmile"), "run", "--adapter", "caddyfile", "--config", filepath.Join(root, "loadtest", "live.Caddyfile"))
	cmd.Env = append(os.Environ(),
		fmt.Sprintf("LASTMILE_HTTPS_PORT=%d", https), fmt.Sprintf("LASTMILE_HTTP_PORT=%d", http),
		fmt.Sprintf("LASTMILE_ADMIN=127.0.0.1:%d", admin), "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir,
		"LIVE_WT_ORIGIN="+where.WebTransport, "LIVE_SSE_ORIGIN="+where.SSE, "LIVE_ORIGIN_CA="+where.CA)
	return runEdge(t, cmd, dir, bin, https, admin)
}

// scenario is the path of a scenario file as run() takes it.
func scenario(name string) string { return filepath.Join("..", "..", "scenarios", name) }

// The relay scenario, for seconds, against the real edge and origin: every
// check and threshold (the relayed stream's round trip) passes, sessions
// were relayed and none is left open.
func TestRelayScenario(t *testing.T) {
	e := startLiveEdge(t)
	s := e.run(t, scenario("webtransport-relay.js"), "-e", "VUS=4", "-e", "DURATION=3s")
	if c := s.Metrics["checks"]; c.Passes < 4*8 || c.Fails != 0 {
		t.Errorf("checks: %d passed, %d failed; want at least 32, 0", c.Passes, c.Fails)
	}
	if n := s.Metrics["lastmile_wt_sessions"].Count; n < 4 {
		t.Errorf("lastmile_wt_sessions = %v, want at least 4", n)
	}
	e.eventually(t, "lastmile_webtransport_sessions_open", 0)
}

// The fan-out scenario, for seconds: every VU's session gets live events
// in order within the delay threshold (p99 250 ms), and none is left open.
func TestFanoutScenario(t *testing.T) {
	e := startLiveEdge(t)
	s := e.run(t, scenario("fanout.js"), "-e", "VUS=5", "-e", "EVENTS=5")
	if c := s.Metrics["checks"]; c.Passes != 5*5 || c.Fails != 0 {
		t.Errorf("checks: %d passed, %d failed; want 25, 0", c.Passes, c.Fails)
	}
	e.eventually(t, "lastmile_webtransport_sessions_open", 0)
}
