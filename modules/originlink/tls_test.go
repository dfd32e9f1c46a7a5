package originlink

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// HTTP/2 over TLS: links resume their TLS session when redialled.
func TestTLSOriginResumesSessions(t *testing.T) {
	var full, resumed atomic.Int64
	first := make(chan net.Conn, 8)
	addr := startTLSOrigin(t, &tls.Config{VerifyConnection: func(cs tls.ConnectionState) error {
		if cs.DidResume {
			resumed.Add(1)
		} else {
			full.Add(1)
		}
		return nil
	}}, func(c net.Conn) { first <- c })
	e := startEdge(t, addr, "pool_size 1\n\t\t\tping_interval 200ms\n\t\t\ttls\n\t\t\ttls_insecure_skip_verify")
	if code, body := get(t, e.base+"/"); code != 200 || body != "HTTP/2.0" {
		t.Fatalf("%d %q", code, body)
	}
	(<-first).Close() // the origin drops the link; the pool redials
	waitFor(t, "a resumed redial", func() bool { return resumed.Load() >= 1 })
	if full.Load() != 1 {
		t.Fatalf("%d full handshakes, want 1", full.Load())
	}
	if code, _ := get(t, e.base+"/"); code != 200 {
		t.Fatal(code)
	}
}

// startTLSOrigin runs an HTTP/2 origin over TLS (tlsConf: the server's,
// with its certificate added) and returns its address; accepted is called
// with each connection it accepts, before its handshake.
func startTLSOrigin(t *testing.T, tlsConf *tls.Config, accepted func(net.Conn)) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(protoHandler))
	srv.EnableHTTP2 = true
	srv.TLS = tlsConf
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			accepted(c)
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "https://")
}

// HTTP/3 to the origin: the same warm pool over QUIC.
func TestHTTP3OriginWarmPool(t *testing.T) {
	cert := selfSignedCert(t)
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns atomic.Int64
	srv := &http3.Server{
		Handler:   http.HandlerFunc(protoHandler),
		TLSConfig: http3.ConfigureTLSConfig(&tls.Config{Certificates: []tls.Certificate{cert}}),
		ConnContext: func(ctx context.Context, c *quic.Conn) context.Context {
			conns.Add(1)
			return ctx
		},
	}
	go srv.Serve(pc)
	t.Cleanup(func() { srv.Close() })
	e := startEdge(t, pc.LocalAddr().String(), "protocol h3\n\t\t\tpool_size 2\n\t\t\ttls\n\t\t\ttls_insecure_skip_verify")
	waitFor(t, "2 QUIC connections before any request", func() bool { return conns.Load() == 2 })
	for range 10 {
		if code, body := get(t, e.base+"/"); code != 200 || body != "HTTP/3.0" {
			t.Fatalf("%d %q", code, body)
		}
	}
	if got := conns.Load(); got != 2 {
		t.Fatalf("requests opened connections: %d", got)
	}
	v := e.linksUp(t, 2)
	if v[0].Protocol != "h3" || len(v[0].Links) != 2 || v[0].Links[0].QUIC == nil || v[0].Links[0].QUIC.SmoothedRTT <= 0 {
		t.Fatalf("%+v", v)
	}
}

func selfSignedCert(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
