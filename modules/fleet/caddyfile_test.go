package fleet

import (
	"strings"
	"testing"

	"github.com/lastmile-edge/lastmile/internal/adapttest"
)

func TestCaddyfileAdapt(t *testing.T) {
	adapttest.Run(t, "testdata")
}

func TestCaddyfileErrors(t *testing.T) {
	for _, tc := range []struct{ name, option, want string }{
		{"unknown option", "fleet {\n\tfoo\n}", `unrecognized fleet option "foo"`},
		{"no url", "fleet {\n\tnats\n}", "wrong argument count"},
		{"bad duration", "fleet {\n\tmax_age soon\n}", "max_age soon"},
		{"not a number", "fleet {\n\tmax_msgs many\n}", "want a whole number"},
		{"user without password", "fleet {\n\tuser bob\n}", "wrong argument count"},
		{"unknown tls option", "fleet {\n\ttls {\n\t\tpin x\n\t}\n}", `unrecognized fleet tls option "pin"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := adapttest.Error(t, "{\n"+tc.option+"\n}\nexample.com {\n\trespond hi\n}\n")
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}
