// Package testcaddy runs Caddyfiles in-process for the modules' tests:
// real listeners on free loopback ports, the config loaded as the admin
// API would, stopped when the test ends.
package testcaddy

import (
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/caddyfile" // the caddyfile adapter
)

// FreePort returns a TCP port free on loopback now, and never one it
// returned before in this process: the kernel may hand a port just closed
// out again, and two listeners of one test on the same port both bind it
// (Caddy listens with SO_REUSEPORT), so requests for one reach the other
// (a site's request answered 404 by the admin endpoint).
func FreePort(t testing.TB) string {
	t.Helper()
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if claim(port) {
			return strconv.Itoa(port)
		}
	}
}

// issued holds the ports FreePort and FreeTCPAndUDPPort returned.
var issued = struct {
	mu    sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// claim reports whether port was not returned before, and marks it returned.
func claim(port int) bool {
	issued.mu.Lock()
	defer issued.mu.Unlock()
	if issued.ports[port] {
		return false
	}
	issued.ports[port] = true
	return true
}

// Run adapts caddyfile, loads it as the process's config and stops Caddy
// when the test ends.
func Run(t testing.TB, caddyfile string) {
	t.Helper()
	js, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), nil)
	if err != nil {
		t.Fatalf("adapting:\n%s\n%v", caddyfile, err)
	}
	if err := caddy.Load(js, true); err != nil {
		t.Fatalf("loading: %v", err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
}

// Validate loads cfgJSON as `caddy validate` (and `lastmile validate`)
// does: every module decoded, provisioned and validated, nothing started,
// then cleaned up. It returns the config's error.
func Validate(t testing.TB, cfgJSON string) error {
	t.Helper()
	var cfg caddy.Config
	if err := json.Unmarshal([]byte(cfgJSON), &cfg); err != nil {
		t.Fatalf("decoding:\n%s\n%v", cfgJSON, err)
	}
	return caddy.Validate(&cfg)
}

// HTTPHandlerConfig is a config whose one HTTP server, on a free loopback
// port, runs handler (a JSON object) for every request: the frame in which
// a module's JSON is validated.
func HTTPHandlerConfig(t testing.TB, handler string) string {
	t.Helper()
	return `{"admin": {"disabled": true}, "apps": {"http": {"servers": {"srv0": {"listen": ["127.0.0.1:` + FreePort(t) +
		`"], "routes": [{"handle": [` + handler + `]}]}}}}}`
}

// Invalid is a config that validation must refuse: its name, its JSON,
// and text its error must contain.
type Invalid [3]string

// RefuseAll validates each config and fails t unless it is refused with
// its error.
func RefuseAll(t *testing.T, configs []Invalid) {
	t.Helper()
	for _, c := range configs {
		name, cfg, want := c[0], c[1], c[2]
		t.Run(name, func(t *testing.T) {
			err := Validate(t, cfg)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("want an error that mentions %q, got %v\nconfig: %s", want, err, cfg)
			}
		})
	}
}
