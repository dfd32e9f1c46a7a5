package originlink

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
		{"bogus", `unrecognized origin_link option "bogus"`},
		{"pool_size some", "want a whole number"},
		{"path_bandwidth fast", "want a rate"},
		{"notsent_lowat none", "want a size"},
		{"ping_interval often", "want a duration"},
		{"warm", "wrong argument count"},
	} {
		t.Run(tc.option, func(t *testing.T) {
			err := adapttest.Error(t, "example.com {\n\treverse_proxy o:80 {\n\t\ttransport origin_link {\n\t\t\t"+tc.option+"\n\t\t}\n\t}\n}\n")
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

func TestParseBits(t *testing.T) {
	for in, want := range map[string]int64{"1Gbit": 1e9, "250Mbit": 250e6, "1.5Mbit": 1.5e6, "64Kbit": 64e3, "1000": 1000, "-1Mbit": -1e6} {
		if got, err := parseBits(in); err != nil || got != want {
			t.Errorf("%s: %d %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "Gbit", "fast", "1e30Gbit"} {
		if _, err := parseBits(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
