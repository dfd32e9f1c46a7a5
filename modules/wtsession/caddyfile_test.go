package wtsession

import (
	"strings"
	"testing"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	"github.com/lastmile-edge/lastmile/internal/adapttest"
	_ "github.com/lastmile-edge/lastmile/modules/quicedge"
)

func TestCaddyfileAdapt(t *testing.T) {
	adapttest.Run(t, "testdata")
}

func TestCaddyfileErrors(t *testing.T) {
	for _, tc := range []struct{ name, block, want string }{
		{"unknown option", "foo", `unrecognized webtransport option "foo"`},
		{"bad limit", "max_sessions_per_client none", "want a whole number"},
		{"bad timeout", "idle_timeout soon", "want a duration"},
		{"unknown session module", "session nope", "nope"},
		{"bad echo size", "session echo big", "want a whole number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := adapttest.Error(t, "example.com {\n\twebtransport /wt {\n\t\t"+tc.block+"\n\t}\n}\n")
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}
