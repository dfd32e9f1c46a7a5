package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// deploy/fleet/tiers/'s Caddyfiles adapt without warnings and hold the
// tier setup the tests in tiers_test.go run.
func TestTierDeployExamplesAdapt(t *testing.T) {
	t.Setenv("LASTMILE_NODE", "edge-1")
	t.Setenv("LASTMILE_TLS_CERT", "/etc/lastmile/tls/cert.pem")
	t.Setenv("LASTMILE_TLS_KEY", "/etc/lastmile/tls/key.pem")
	t.Setenv("LASTMILE_FLEET_CA", "/etc/lastmile/tls/fleet-ca.pem")
	files, _ := filepath.Glob("../deploy/fleet/tiers/*.Caddyfile")
	if len(files) != 2 {
		t.Fatalf("want edge and shield examples, got %v", files)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		js, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt(src, map[string]any{"filename": f})
		if err != nil || len(warnings) > 0 {
			t.Fatalf("%s: %v %v", f, err, warnings)
		}
		var cfg caddy.Config
		if err := caddy.StrictUnmarshalJSON(js, &cfg); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if _, err := caddyfile.FormattingDifference(f, src); err {
			t.Errorf("%s is not formatted as `caddy fmt` would", f)
		}
	}
}
