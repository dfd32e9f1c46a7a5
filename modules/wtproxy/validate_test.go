package wtproxy

import (
	"testing"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// JSON configs (and the admin API) get the checks Caddyfiles get.
func TestValidateRefusesInvalidJSON(t *testing.T) {
	proxy := func(fields string) string {
		return testcaddy.HTTPHandlerConfig(t, `{"handler": "webtransport", "session": {"handler": "proxy"`+fields+`}}`)
	}
	testcaddy.RefuseAll(t, []testcaddy.Invalid{
		{"no upstream", proxy(``), "proxy: an upstream URL is required"},
		{"plain http upstream", proxy(`, "upstream": "http://app:8080"`), `upstream "http://app:8080": want https://host[:port][/path]`},
		{"upstream with credentials", proxy(`, "upstream": "https://u:p@app"`), "want https://host[:port][/path]"},
		{"negative dial timeout", proxy(`, "upstream": "https://app", "dial_timeout": "-1s"`), "dial_timeout -1s: want a positive duration"},
		{"tiny buffer", proxy(`, "upstream": "https://app", "buffer_size": 10`), "buffer_size 10: want 1024 to 16777216 bytes"},
		{"huge buffer", proxy(`, "upstream": "https://app", "buffer_size": 1073741824`), "buffer_size 1073741824"},
		{"negative streams", proxy(`, "upstream": "https://app", "max_streams": -1`), "max_streams -1: want a positive whole number"},
		{"negative sharing", proxy(`, "upstream": "https://app", "sessions_per_connection": -2`), "sessions_per_connection -2"},
		{"bad header name", proxy(`, "upstream": "https://app", "forward_headers": ["Bad Header"]`), `forward_headers "Bad Header": not a header name`},
		{"offer as a forwarded header", proxy(`, "upstream": "https://app", "forward_headers": ["wt-available-protocols"]`), "list the application protocols to relay with protocols"},
		{"empty protocol", proxy(`, "upstream": "https://app", "protocols": [""]`), `protocols "": want 1 to 255 characters`},
		{"protocol not printable", proxy(`, "upstream": "https://app", "protocols": ["chat\u00e9"]`), "want printable ASCII"},
		{"protocol twice", proxy(`, "upstream": "https://app", "protocols": ["a", "b", "a"]`), `protocols "a": listed twice`},
		{"missing CA file", proxy(`, "upstream": "https://app", "tls": {"root_ca_pem_files": ["/nonexistent/ca.pem"]}`), "proxy: tls trusted CA"},
		{"certificate without key", proxy(`, "upstream": "https://app", "tls": {"client_certificate_file": "c.pem"}`), "want both the certificate and the key file"},
	})
}
