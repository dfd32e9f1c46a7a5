package quicedge

import (
	"strings"
	"testing"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	"github.com/lastmile-edge/lastmile/internal/adapttest"
)

func TestCaddyfileAdapt(t *testing.T) {
	adapttest.Run(t, "testdata")
}

func TestCaddyfileErrors(t *testing.T) {
	for _, tc := range []struct{ name, option, want string }{
		{"unknown option", "quic {\n\tfoo\n}", `unrecognized quic option "foo"`},
		{"bad duration", "quic {\n\tidle_timeout soon\n}", "soon"},
		{"not a number", "quic {\n\tmax_incoming_streams many\n}", "want a whole number"},
		{"packet size not 16 bits", "quic {\n\tinitial_packet_size 70000\n}", "want 1200 to 65535"},
		{"not on or off", "quic {\n\tdatagrams maybe\n}", "want on or off"},
		{"argument on option", "quic now {\n}", "wrong argument count"},
		{"unknown controller", "quic {\n\tcongestion_control vegas\n}", `congestion_control "vegas": want one of [bbr cubic reno]`},
		{"bad qlog size", "quic {\n\tqlog_max_size lots\n}", "want a size such as 512MiB"},
		{"bad session data size", "quic {\n\twebtransport_session_max_data lots\n}", "want a size up to 1GiB, such as 4MiB"},
		{"too many sessions per connection", "quic {\n\twebtransport_max_sessions_per_connection 5000\n}", "want 1 to 1024"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := adapttest.Error(t, "{\n"+tc.option+"\n}\nexample.com {\n\trespond hi\n}\n")
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
	err := adapttest.Error(t, "example.com {\n\talt_svc forever\n}\n")
	if !strings.Contains(err.Error(), "alt_svc max age") {
		t.Fatalf("alt_svc error: %v", err)
	}
}
