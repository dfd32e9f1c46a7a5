package clienttcp

import (
	"testing"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// JSON configs (and the admin API) get the checks Caddyfiles get.
func TestValidateRefusesInvalidJSON(t *testing.T) {
	wrapper := func(fields string) string {
		return `{"admin": {"disabled": true}, "apps": {"http": {"servers": {"srv0": {"listen": ["127.0.0.1:` + testcaddy.FreePort(t) +
			`"], "listener_wrappers": [{"wrapper": "client_tcp"` + fields + `}]}}}}}`
	}
	testcaddy.RefuseAll(t, []testcaddy.Invalid{
		{"notsent_lowat below -1", wrapper(`, "notsent_lowat": -2`), "notsent_lowat -2: want -1 (kernel default) or up to 1 GiB"},
		{"notsent_lowat above 1 GiB", wrapper(`, "notsent_lowat": 2147483647`), "notsent_lowat 2147483647: want -1 (kernel default) or up to 1 GiB"},
		{"answer_hits not a boolean", wrapper(`, "answer_hits": "off"`), "answer_hits of type bool"},
	})
}
