package wtfanout

import (
	"testing"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// JSON configs (and the admin API) get the checks Caddyfiles get.
func TestValidateRefusesInvalidJSON(t *testing.T) {
	fanout := func(fields string) string {
		return testcaddy.HTTPHandlerConfig(t, `{"handler": "webtransport", "session": {"handler": "fanout"`+fields+`}}`)
	}
	up := `, "upstream": "https://o/events/{channel}"`
	testcaddy.RefuseAll(t, []testcaddy.Invalid{
		{"no upstream", fanout(``), "an upstream URL template is required"},
		{"no placeholder", fanout(`, "upstream": "https://o/events"`), "want {channel} exactly once"},
		{"two placeholders", fanout(`, "upstream": "https://o/{channel}/{channel}"`), "want {channel} exactly once"},
		{"channel picks the host", fanout(`, "upstream": "https://{channel}.o/events"`), "in its path or query"},
		{"not http", fanout(`, "upstream": "ftp://o/{channel}"`), "want http[s]://host"},
		{"credentials", fanout(`, "upstream": "https://u:p@o/{channel}"`), "want http[s]://host"},
		{"negative replay", fanout(up + `, "replay": -1`), "replay -1: want 0 to 4096"},
		{"huge replay", fanout(up + `, "replay": 100000, "queue": 100000`), "replay 100000"},
		{"queue below replay", fanout(up + `, "replay": 32, "queue": 8`), "queue 8 is smaller than replay 32"},
		{"huge queue", fanout(up + `, "queue": 1000000`), "queue 1000000: want 1 to 65536"},
		{"bad overflow", fanout(up + `, "overflow": "block"`), `overflow "block": want notify or close`},
		{"negative subscriptions", fanout(up + `, "max_subscriptions": -1`), "max_subscriptions -1"},
		{"negative per client", fanout(up + `, "max_subscriptions_per_client": -3`), "max_subscriptions_per_client -3"},
		{"reconnect max below min", fanout(up + `, "reconnect_min": "5s", "reconnect_max": "1s"`), "want 0 < min <= max"},
		{"negative linger", fanout(up + `, "linger": "-1s"`), "linger -1s"},
		{"negative dial timeout", fanout(up + `, "dial_timeout": "-1s"`), "dial_timeout -1s"},
		{"tiny event size", fanout(up + `, "max_event_size": 10`), "max_event_size 10: want 64 to"},
		{"bad header name", fanout(up + `, "headers": {"Bad Header": ["x"]}`), `header "Bad Header": not a header name`},
		{"bad header value", fanout(up + `, "headers": {"X-T": ["a\nb"]}`), "is not a valid header value"},
		{"missing CA file", fanout(up + `, "tls": {"root_ca_pem_files": ["/nonexistent/ca.pem"]}`), "fanout: tls trusted CA"},
	})
}
