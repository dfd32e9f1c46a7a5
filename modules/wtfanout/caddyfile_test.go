package wtfanout

import (
	"strings"
	"testing"

	"github.com/lastmile-edge/lastmile/internal/adapttest"
)

func TestCaddyfileAdapt(t *testing.T) {
	adapttest.Run(t, "testdata")
}

func TestCaddyfileErrors(t *testing.T) {
	block := func(opt string) string { return "fanout https://o/{channel} {\n\t\t\t" + opt + "\n\t\t}" }
	for _, tc := range []struct{ name, session, want string }{
		{"no upstream", "fanout", "an upstream URL template is required"},
		{"two upstreams", "fanout https://a/{channel} https://b", "wrong argument count"},
		{"unknown option", block("foo"), `unrecognized fanout option "foo"`},
		{"bad replay", block("replay lots"), `replay "lots": want a whole number`},
		{"bad datagrams", block("datagrams maybe"), `datagrams "maybe": want on or off`},
		{"bad reconnect", block("reconnect 1s"), "wrong argument count"},
		{"bad linger", block("linger soon"), `linger "soon": want a duration`},
		{"huge event", block("max_event_size 1GiB"), "at most 16MiB"},
		{"header without value", block("header_up X-Token"), "wrong argument count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := adapttest.Error(t, "example.com {\n\twebtransport /live {\n\t\tsession "+tc.session+"\n\t}\n}\n")
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}
