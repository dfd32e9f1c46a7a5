package clienttcp

import (
	"crypto/tls"
	"testing"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	"github.com/lastmile-edge/lastmile/internal/testcert"
	_ "github.com/lastmile-edge/lastmile/modules/quicedge" // the quic app and alt_svc
)

// On the default site (TLS, the quic app on the same port, alt_svc before
// edge_cache) a hit answered below net/http carries the Alt-Svc that names
// the port it came in on, as net/http's answers do.
func TestAnsweredHitCarriesAltSvc(t *testing.T) {
	origin := hitsOrigin(t, nil)
	cert := testcert.Write(t)
	port := testcaddy.FreeTCPAndUDPPort(t)
	testcaddy.Run(t, `{
	admin off
	auto_https off
	servers {
		protocols h1
		listener_wrappers {
			client_tcp
		}
	}
	quic
}
https://127.0.0.1:`+port+`, https://localhost:`+port+` {
	tls `+cert.CertFile+` `+cert.KeyFile+`
	alt_svc
	edge_cache
	reverse_proxy `+origin+`
}
`)
	addr := "127.0.0.1:" + port
	tlsEdges.Store(addr, &tls.Config{RootCAs: cert.Pool, ServerName: "localhost", NextProtos: []string{"http/1.1"}})
	t.Cleanup(func() { tlsEdges.Delete(addr) })
	want := `h3=":` + port + `"; ma=86400`

	c, br := dialAnswered(t, addr, true) // its first answer is net/http's
	answered := countedSince(t, answeredHits)
	resp := roundTrip(t, c, br, "/plain")
	if answered() != 1 {
		t.Fatal("a hit after one answered below net/http was not")
	}
	if got := resp.Header.Values("Alt-Svc"); len(got) != 1 || got[0] != want {
		t.Fatalf("Alt-Svc %q on a hit answered below net/http, want %q", got, want)
	}
	if got := roundTrip(t, c, br, "/nostore").Header.Values("Alt-Svc"); len(got) != 1 || got[0] != want {
		t.Fatalf("Alt-Svc %q from net/http, want %q", got, want)
	}
}
