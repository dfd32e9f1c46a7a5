package wtproxy

import (
	"strings"
	"testing"

	"github.com/lastmile-edge/lastmile/internal/adapttest"
)

func TestCaddyfileAdapt(t *testing.T) {
	adapttest.Run(t, "testdata")
}

func TestCaddyfileErrors(t *testing.T) {
	for _, tc := range []struct{ name, session, want string }{
		{"no upstream", "proxy", "an upstream URL is required"},
		{"two upstreams", "proxy https://a https://b", "wrong argument count"},
		{"unknown option", "proxy https://a {\n\t\t\tfoo\n\t\t}", `unrecognized proxy option "foo"`},
		{"bad timeout", "proxy https://a {\n\t\t\tdial_timeout soon\n\t\t}", "want a duration"},
		{"bad buffer", "proxy https://a {\n\t\t\tbuffer_size lots\n\t\t}", "want a size"},
		{"huge buffer", "proxy https://a {\n\t\t\tbuffer_size 1GiB\n\t\t}", "at most 16MiB"},
		{"bad streams", "proxy https://a {\n\t\t\tmax_streams many\n\t\t}", "max_streams \"many\": want a whole number"},
		{"client auth without key", "proxy https://a {\n\t\t\ttls_client_auth cert.pem\n\t\t}", "wrong argument count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := adapttest.Error(t, "example.com {\n\twebtransport /wt {\n\t\tsession "+tc.session+"\n\t}\n}\n")
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}
