package clienttcp

import (
	"strings"
	"testing"

	_ "github.com/caddyserver/caddy/v2/modules/standard" // the Caddyfile adapter, tls wrapper, respond

	"github.com/lastmile-edge/lastmile/internal/adapttest"
)

func TestCaddyfileAdapt(t *testing.T) {
	adapttest.Run(t, "testdata")
}

func TestCaddyfileErrors(t *testing.T) {
	for _, tc := range []struct{ option, want string }{
		{"bogus 1", `unrecognized client_tcp option "bogus"`},
		{"notsent_lowat none", "want a size"},
		{"congestion_control", "wrong argument count"},
		{"answer_hits maybe", `answer_hits "maybe": want on or off`},
		{"answer_hits", "wrong argument count"},
		{"congestion_control bbr cubic", "wrong argument count"},
	} {
		t.Run(tc.option, func(t *testing.T) {
			err := adapttest.Error(t, "{\n\tservers {\n\t\tlistener_wrappers {\n\t\t\tclient_tcp {\n\t\t\t\t"+tc.option+"\n\t\t\t}\n\t\t\ttls\n\t\t}\n\t}\n}\nexample.com {\n\trespond ok\n}\n")
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}
