package quicedge_test

import (
	"io"
	"net/http"
	"testing"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	_ "github.com/lastmile-edge/lastmile/modules/wtsession"
)

// siteConfig serves s over HTTP/1.1, HTTP/2 and the quic app (grace
// period 1s): an echo WebTransport endpoint on /wt, and route (a handler
// directive) for every other request.
func siteConfig(s *testcaddy.Site, route string) string {
	return `{
	admin ` + s.Admin + `
	servers {
		protocols h1 h2
	}
	quic {
		grace_period 1s
	}
}
localhost:` + s.Port + ` {
	tls ` + s.CertFile + ` ` + s.KeyFile + `
	webtransport /wt {
		session echo
	}
	` + route + `
}
`
}

func get(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK || resp.Proto != "HTTP/3.0" {
		t.Fatalf("GET %s: %s %s, %v", url, resp.Proto, resp.Status, err)
	}
	return string(body)
}
