package httpcache

import (
	"testing"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// JSON configs (and the admin API) get the checks Caddyfiles get.
func TestValidateRefusesInvalidJSON(t *testing.T) {
	cache := func(fields string) string {
		return testcaddy.HTTPHandlerConfig(t, `{"handler": "edge_cache", "name": "validate-test", `+fields+`}`)
	}
	testcaddy.RefuseAll(t, []testcaddy.Invalid{
		{"negative budget", cache(`"max_bytes": -1`), "max_bytes -1: want 1 byte to 1 TiB"},
		{"budget beyond 1 TiB", cache(`"max_bytes": 2199023255552`), "max_bytes 2199023255552: want 1 byte to 1 TiB"},
		{"negative object size", cache(`"max_object_bytes": -5`), "max_object_bytes -5: want a positive size"},
		{"object larger than the store", cache(`"max_bytes": 1024, "max_object_bytes": 2048`), "max_object_bytes (2048) exceeds max_bytes (1024)"},
		{"negative stale-if-error", cache(`"stale_if_error": "-1s"`), "stale_if_error -1s: must not be negative"},
		{"negative origin timeout", cache(`"origin_timeout": "-30s"`), "origin_timeout -30s: must not be negative"},
		{"refresh-ahead percentage", cache(`"refresh_ahead": {"percentage": 150}`), "refresh_ahead wants amount >= 1, a positive duration and a percentage from 1 to 99"},
		{"negative prefetch concurrency", cache(`"prefetch": {"concurrency": -1}`), "prefetch concurrency -1: want 1 to 1024"},
		{"prefetch concurrency too high", cache(`"prefetch": {"concurrency": 5000}`), "prefetch concurrency 5000: want 1 to 1024"},
		{"prefetch max_links too high", cache(`"prefetch": {"max_links": 2048}`), "prefetch max_links 2048: want 1 to 1024"},
		{"status name with a control character", cache(`"status_name": "edge\u0001"`), `status_name "edge\x01": want 1 to 64 printable ASCII characters`},
		{"hit fields neither full nor compact", cache(`"hit_fields": "short"`), `hit_fields "short": want "full" or "compact"`},
		{"credential header not a field name", cache(`"credential_headers": ["X-Session", "bad header"]`), `"bad header" is not a field name`},
	})
}
