package clienttcp

import (
	"crypto/tls"
	"testing"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	"github.com/lastmile-edge/lastmile/internal/testcert"
)

// hitsEdgeTLS is hitsEdge over TLS: the site on both servers, one that
// answers hits below net/http and one with answer_hits off, HTTP/1.1 only
// (the fast hit path is off where Caddy's HTTP/3 adds Alt-Svc).
func hitsEdgeTLS(t *testing.T) (answering, through string) {
	origin := hitsOrigin(t, nil)
	cert := testcert.Write(t)
	a, b := testcaddy.FreePort(t), testcaddy.FreePort(t)
	site := func(port string) string {
		return `https://127.0.0.1:` + port + `, https://localhost:` + port + ` {
	tls ` + cert.CertFile + ` ` + cert.KeyFile + `
	edge_cache {
		max_object_bytes 64MiB
	}
	reverse_proxy ` + origin + `
}
`
	}
	testcaddy.Run(t, `{
	admin off
	auto_https off
	servers :`+a+` {
		protocols h1
		listener_wrappers {
			client_tcp
		}
	}
	servers :`+b+` {
		protocols h1
		listener_wrappers {
			client_tcp {
				answer_hits off
			}
		}
	}
}
`+site(a)+site(b))
	answering, through = "127.0.0.1:"+a, "127.0.0.1:"+b
	for _, addr := range []string{answering, through} {
		tlsEdges.Store(addr, &tls.Config{RootCAs: cert.Pool, ServerName: "localhost", NextProtos: []string{"http/1.1"}})
		t.Cleanup(func() { tlsEdges.Delete(addr) })
	}
	return answering, through
}

// Over TLS as over TCP, the same bytes get the same responses from a
// server that answers hits below net/http as from one that does not, and
// the hits are answered below net/http, whichever Host the request names
// of the site's, and pipelined.
func TestAnsweredHitsOverTLSMatchNetHTTP(t *testing.T) {
	answering, through := hitsEdgeTLS(t)
	warmPipelined(t, answering, through)
	get := func(host, path, fields string) string {
		return "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + fields + "\r\n"
	}
	for _, c := range []struct {
		name     string
		raw      string
		answered int
	}{
		{"hit", get("127.0.0.1", "/plain", ""), 1},
		{"hit by the sni's name", get("localhost", "/plain", ""), 1},
		{"conditional", get("127.0.0.1", "/plain", "If-None-Match: \"v1\"\r\n"), 1},
		{"pipelined", pipelinedHits, 2},
		{"other host", get("example.com", "/plain", ""), 0},
		{"authorization", get("127.0.0.1", "/plain", "Authorization: Basic eDp5\r\n"), 0},
	} {
		t.Run(c.name, func(t *testing.T) { compareAnswering(t, answering, through, c.raw, c.answered) })
	}
}
