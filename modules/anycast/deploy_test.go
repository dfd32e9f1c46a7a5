package anycast

import (
	"os"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// deploy/fleet's edge Caddyfile adapts and validates.
func TestFleetEdgeCaddyfileValidates(t *testing.T) {
	src, err := os.ReadFile("../../deploy/fleet/Caddyfile.edge")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("BGP_PASSWORD", "example")
	js, _, err := caddyconfig.GetAdapter("caddyfile").Adapt(src, map[string]any{"filename": "Caddyfile.edge"})
	if err != nil {
		t.Fatal(err)
	}
	if err := testcaddy.Validate(t, string(js)); err != nil {
		t.Fatal(err)
	}
}
