package wtsession

import (
	"testing"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// JSON configs (and the admin API) get the checks Caddyfiles get.
func TestValidateRefusesInvalidJSON(t *testing.T) {
	handler := func(fields string) string {
		return testcaddy.HTTPHandlerConfig(t, `{"handler": "webtransport", "session": {"handler": "echo"}`+fields+`}`)
	}
	testcaddy.RefuseAll(t, []testcaddy.Invalid{
		{"no session module", testcaddy.HTTPHandlerConfig(t, `{"handler": "webtransport"}`), "webtransport: a session module is required"},
		{"negative session limit", handler(`, "max_sessions_per_client": -1`), "max_sessions_per_client -1: want a positive whole number"},
		{"negative idle timeout", handler(`, "idle_timeout": "-5s"`), "idle_timeout -5s: want a positive duration"},
		{"origin without scheme", handler(`, "origins": ["example.com"]`), `origin "example.com": want scheme://host[:port] or *`},
		{"origin with a path", handler(`, "origins": ["https://example.com/app"]`), `origin "https://example.com/app"`},
		{"negative echo limit", testcaddy.HTTPHandlerConfig(t, `{"handler": "webtransport", "session": {"handler": "echo", "max_stream_bytes": -1}}`),
			"echo: max_stream_bytes -1: want a positive whole number"},
	})
}
