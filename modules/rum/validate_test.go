package rum

import (
	"testing"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// JSON configs (and the admin API) get the checks Caddyfiles get.
func TestValidateRefusesInvalidJSON(t *testing.T) {
	rum := func(fields string) string {
		return testcaddy.HTTPHandlerConfig(t, `{"handler": "rum"`+fields+`}`)
	}
	session := func(fields string) string {
		return testcaddy.HTTPHandlerConfig(t, `{"handler": "webtransport", "session": {"handler": "rum"`+fields+`}}`)
	}
	testcaddy.RefuseAll(t, []testcaddy.Invalid{
		{"relative path", rum(`, "path": "rum"`), `path "rum" must start with /`},
		{"negative rate", rum(`, "rate_limit": -1`), "rate_limit -1: want a positive number of beacons per second"},
		{"sample rate above 1", rum(`, "sample_rate": 1.5`), "sample_rate 1.5: want more than 0, up to 1"},
		{"negative sample rate", rum(`, "sample_rate": -0.5`), "sample_rate -0.5: want more than 0, up to 1"},
		{"origin without scheme", rum(`, "origins": ["example.com"]`), `origin "example.com": want scheme://host[:port]`},
		{"raw sink without path", rum(`, "raw_sink": {"path": ""}`), "raw_sink needs a path"},
		{"raw sink negative size", rum(`, "raw_sink": {"path": "` + t.TempDir() + `/b.jsonl", "max_size_mb": -1}`), "raw_sink max_size_mb -1: must not be negative"},
		{"session negative rate", session(`, "rate_limit": -2`), "rate_limit -2: want a positive number of beacons per second"},
		{"session raw sink negative backups", session(`, "raw_sink": {"path": "` + t.TempDir() + `/s.jsonl", "max_backups": -1}`), "raw_sink max_backups -1: must not be negative"},
	})
}
