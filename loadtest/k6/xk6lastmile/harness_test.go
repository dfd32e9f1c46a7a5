package xk6lastmile_test

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests run the real k6 (built with this extension) against the
// real demo edge, and read what the edge saw from its metrics.

// edge is a running `lastmile demo`.
type edge struct {
	base, admin string
	k6          string
}

func startEdge(t *testing.T) *edge {
	t.Helper()
	_, bin := buildBinaries(t)

	https, http, origin, admin := freePort(t), freePort(t), freePort(t), freePort(t)
	dir := t.TempDir()
	cmd := exec.Command(filepath.Join(bin, "lastmile"), "demo", "--origin", fmt.Sprintf("127.0.0.1:%d", origin))
	cmd.Env = append(os.Environ(),
		fmt.Sprintf("LASTMILE_HTTPS_PORT=%d", https), fmt.Sprintf("LASTMILE_HTTP_PORT=%d", http),
		fmt.Sprintf("LASTMILE_ADMIN=127.0.0.1:%d", admin), "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir,
		"LASTMILE_WT_SESSIONS_PER_CLIENT=1000")
	return runEdge(t, cmd, dir, bin, https, admin)
}

// runEdge starts the edge command (its ports already in its environment)
// and waits until its metrics answer and its site completes a TLS
// handshake: the admin endpoint answers before Caddy has issued the site's
// certificate, and a k6 request in that gap fails its handshake.
func runEdge(t *testing.T, cmd *exec.Cmd, dir, bin string, https, admin int) *edge {
	t.Helper()
	startProcess(t, cmd, filepath.Join(dir, "edge.log"))
	e := &edge{base: fmt.Sprintf("https://localhost:%d", https), admin: fmt.Sprintf("http://127.0.0.1:%d", admin), k6: filepath.Join(bin, "k6")}
	site := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	defer site.CloseIdleConnections()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := e.metric("lastmile_quic_connections_total"); err == nil {
			if resp, err := site.Get(e.base + "/"); err == nil {
				resp.Body.Close()
				return e
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("edge not up in 20 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// startProcess starts cmd with its output in logPath, kills it when the
// test ends and shows the log if the test failed.
func startProcess(t *testing.T, cmd *exec.Cmd, logPath string) {
	t.Helper()
	log, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			out, _ := os.ReadFile(logPath)
			t.Logf("%s:\n%s", filepath.Base(logPath), out)
		}
	})
}

// buildBinaries builds the edge, k6 with this extension and each of the
// repository's commands cmds (such as ./loadtest/cmd/liveorigin) into
// loadtest/bin, and returns the repository's root and that directory.
func buildBinaries(t *testing.T, cmds ...string) (root, bin string) {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(root, "loadtest", "bin")
	build(t, root, filepath.Join(bin, "lastmile"), "./edge")
	for _, cmd := range cmds {
		build(t, root, filepath.Join(bin, filepath.Base(cmd)), cmd)
	}
	build(t, filepath.Join(root, "loadtest", "k6"), filepath.Join(bin, "k6"), ".")
	return root, bin
}

func build(t *testing.T, dir, out, pkg string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
}

// freePort returns a loopback port free on TCP and UDP, never one it
// returned before: a port just closed may come back from the kernel, and
// the edge (SO_REUSEPORT) would bind it twice, for two of its listeners.
func freePort(t *testing.T) int {
	t.Helper()
	returnedMu.Lock()
	defer returnedMu.Unlock()
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		// The edge needs the UDP twin of its HTTPS port too.
		if u, err := net.ListenPacket("udp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			u.Close()
			if !returned[port] {
				returned[port] = true
				return port
			}
		}
	}
	t.Fatal("no free port")
	return 0
}

var (
	returnedMu sync.Mutex
	returned   = map[int]bool{}
)

// metric reads one unlabelled sample from the edge's /metrics.
func (e *edge) metric(name string) (float64, error) {
	resp, err := http.Get(e.admin + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			return strconv.ParseFloat(v, 64)
		}
	}
	return 0, fmt.Errorf("%s not in /metrics", name)
}

func (e *edge) mustMetric(t *testing.T, name string) float64 {
	t.Helper()
	v, err := e.metric(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// eventually waits up to 10 s for the metric to reach want: the edge
// sees a close after k6 exits, later on a loaded CI machine. The edge's
// idle timeout is 30 s, so a connection the client left open stays.
func (e *edge) eventually(t *testing.T, name string, want float64) {
	t.Helper()
	var got float64
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got = e.mustMetric(t, name); got == want {
			return
		}
	}
	t.Errorf("%s = %v, want %v", name, got, want)
}

// summary is what k6 --summary-export writes, the parts the tests read.
type summary struct {
	Metrics map[string]struct {
		Passes int     `json:"passes"`
		Fails  int     `json:"fails"`
		Count  float64 `json:"count"`
	} `json:"metrics"`
}

// run runs a script from testdata and fails the test if k6 fails (a
// threshold breach exits with 99).
func (e *edge) run(t *testing.T, script string, args ...string) summary {
	t.Helper()
	return e.runWithEnv(t, nil, script, args...)
}

// runWithEnv is run with environment variables for k6 itself (its outputs
// read their settings from there).
func (e *edge) runWithEnv(t *testing.T, env []string, script string, args ...string) summary {
	t.Helper()
	out := filepath.Join(t.TempDir(), "summary.json")
	argv := append([]string{"run", "--quiet", "--summary-export", out, "-e", "BASE=" + e.base, "-e", "ADMIN=" + e.admin}, args...)
	cmd := exec.Command(e.k6, append(argv, filepath.Join("testdata", script))...)
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("k6 run %s: %v\n%s", script, err, b)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var s summary
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s
}
