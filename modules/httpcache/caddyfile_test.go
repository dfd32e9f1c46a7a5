package httpcache

import (
	"strings"
	"testing"

	"github.com/lastmile-edge/lastmile/internal/adapttest"
)

func TestCaddyfileAdapt(t *testing.T) {
	adapttest.Run(t, "testdata")
}

func TestCaddyfileErrors(t *testing.T) {
	for _, tc := range []struct{ option, want string }{
		{"foo", `unrecognized edge_cache option "foo"`},
		{"max_bytes lots", "want a size"},
		{"heuristic maybe", "want on or off"},
		{"stale_if_error soon", "want a duration"},
		{"deception_armour maybe", "deception_armour: want on or off"},
		{"credential_headers", "wrong argument count"},
		{"micro_cache 1s always", "credentials?"},
		{"refresh_ahead some", "want a whole number"},
		{"refresh_ahead 3 1m most", "want a percentage"},
		{"key {\n\t\t\tbogus\n\t\t}", `unrecognized key option "bogus"`},
		{"prefetch {\n\t\t\tconcurrency all\n\t\t}", "want a whole number"},
		{"name a b", "wrong argument count"},
	} {
		t.Run(tc.option, func(t *testing.T) {
			err := adapttest.Error(t, "example.com {\n\tedge_cache {\n\t\t"+tc.option+"\n\t}\n}\n")
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}
