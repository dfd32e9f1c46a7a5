package httpcache

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	_ "github.com/lastmile-edge/lastmile/modules/quicedge"
)

// startCacheTLS runs `edge_cache { options }` + reverse_proxy to origin
// on an HTTPS site with a certificate from Caddy's internal CA, and the
// quic app serving HTTP/3 on the same port, as the edge runs in
// production. It returns an edge for HTTP/1.1 over TLS and one for
// HTTP/3, both trusting that CA.
func startCacheTLS(t *testing.T, origin *testOrigin, options string) (h1, h3 *testEdge) {
	t.Helper()
	port, adminPort := freeTCPAndUDPPort(t), testcaddy.FreePort(t)
	cfg := fmt.Sprintf(`{
	admin 127.0.0.1:%s
	persist_config off
	auto_https disable_redirects
	skip_install_trust
	storage file_system %s
	servers {
		protocols h1 h2
	}
	quic
}
https://localhost:%s {
	tls internal
	edge_cache {
%s
	}
	reverse_proxy %s
}
`, adminPort, t.TempDir(), port, options, strings.TrimPrefix(origin.URL, "http://"))
	testcaddy.Run(t, cfg)
	admin := "http://127.0.0.1:" + adminPort
	tlsConfig := &tls.Config{RootCAs: internalCARoot(t, admin), ServerName: "localhost"}
	addr := "127.0.0.1:" + port
	// The certificate is issued in the background as the config starts.
	eventually(t, "the site's certificate", func() bool {
		c, err := tls.Dial("tcp", addr, tlsConfig)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	dialer := &net.Dialer{}
	tcp := &http.Transport{
		TLSClientConfig: tlsConfig, MaxIdleConnsPerHost: 64,
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, addr)
		},
		TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}, // HTTP/1.1 only
	}
	quicTr := &http3.Transport{
		TLSClientConfig: tlsConfig,
		Dial: func(ctx context.Context, _ string, tlsCfg *tls.Config, cfg *quic.Config) (*quic.Conn, error) {
			return quic.DialAddrEarly(ctx, addr, tlsCfg, cfg)
		},
	}
	t.Cleanup(func() { tcp.CloseIdleConnections(); quicTr.Close() })
	base := "https://localhost:" + port
	noRedirects := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	h1 = &testEdge{base: base, admin: admin, client: &http.Client{Timeout: 10 * time.Second, Transport: tcp, CheckRedirect: noRedirects}}
	h3 = &testEdge{base: base, admin: admin, client: &http.Client{Timeout: 10 * time.Second, Transport: quicTr, CheckRedirect: noRedirects}}
	return h1, h3
}

// internalCARoot is the root certificate of Caddy's internal CA, from the
// admin API.
func internalCARoot(t *testing.T, admin string) *x509.CertPool {
	t.Helper()
	resp, err := http.Get(admin + "/pki/ca/local")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ca struct {
		Root string `json:"root_certificate"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ca); err != nil {
		t.Fatalf("reading the internal CA: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(ca.Root)) {
		t.Fatalf("no root certificate in %q", ca.Root)
	}
	return pool
}

// freeTCPAndUDPPort returns a loopback port free for TCP and UDP alike:
// HTTPS and HTTP/3 share its number.
func freeTCPAndUDPPort(t *testing.T) string {
	t.Helper()
	for range 50 {
		port := testcaddy.FreePort(t)
		pc, err := net.ListenPacket("udp", ":"+port)
		if err != nil {
			continue
		}
		pc.Close()
		return port
	}
	t.Fatal("no port free for TCP and UDP")
	return ""
}

// The HTTP/3 edge answers from the same store as the HTTP/1.1 one.
func TestCacheOverHTTP3(t *testing.T) {
	o := newOrigin(t)
	o.respond("/shared", http.StatusOK, "Cache-Control", "max-age=60")
	h1, h3 := startCacheTLS(t, o, "")
	var proto string
	h3.client.Transport = protoRecorder{h3.client.Transport, &proto}
	first := h1.get(t, "/shared")
	r := h3.get(t, "/shared")
	wantHit(t, r)
	if r.body != first.body || proto != "HTTP/3.0" {
		t.Fatalf("over %s: %q, want the stored %q over HTTP/3.0", proto, r.body, first.body)
	}
	if got := o.count("/shared"); got != 1 {
		t.Fatalf("origin saw %d requests, want 1", got)
	}
}

// protoRecorder notes the protocol of each response.
type protoRecorder struct {
	http.RoundTripper
	proto *string
}

func (p protoRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := p.RoundTripper.RoundTrip(r)
	if err == nil {
		*p.proto = resp.Proto
	}
	return resp, err
}
