// Package testcaddy runs Caddyfiles in-process for the modules' tests:
// real listeners on free loopback ports, the config loaded as the admin
// API would, stopped when the test ends.
package testcaddy

import (
	"net"
	"strconv"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/caddyfile" // the caddyfile adapter
)

// FreePort returns a TCP port free on loopback now.
func FreePort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
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
