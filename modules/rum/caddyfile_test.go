package rum

import (
	"strings"
	"testing"

	"github.com/lastmile-edge/lastmile/internal/adapttest"
	_ "github.com/lastmile-edge/lastmile/modules/quicedge"
)

func TestCaddyfileAdapt(t *testing.T) {
	adapttest.Run(t, "testdata")
}

func TestCaddyfileErrors(t *testing.T) {
	for _, tc := range []struct{ option, want string }{
		{"bogus", `unrecognized rum option "bogus"`},
		{"rate_limit fast", "want a number"},
		{"raw_sink", "wrong argument count"},
		{"raw_sink /x big", "want a whole number"},
		{"regions", "wrong argument count"},
	} {
		t.Run(tc.option, func(t *testing.T) {
			err := adapttest.Error(t, "example.com {\n\trum {\n\t\t"+tc.option+"\n\t}\n}\n")
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}
