package testcaddy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/testcert"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"
)

// Site is an HTTPS site for HTTP/3 tests: a port free on TCP and UDP, a
// fresh certificate for localhost and a free admin address.
type Site struct {
	Port      string
	Admin     string // host:port of the admin API
	CertFile  string
	KeyFile   string
	Cert      *x509.Certificate
	Roots     *x509.CertPool
	listenUDP string
}

// NewSite makes a Site; its files live in a temporary directory.
func NewSite(t testing.TB) *Site {
	t.Helper()
	c := testcert.Write(t)
	s := &Site{CertFile: c.CertFile, KeyFile: c.KeyFile, Cert: c.Cert, Roots: c.Pool}
	s.Port = FreeTCPAndUDPPort(t)
	s.Admin = "127.0.0.1:" + FreePort(t)
	s.listenUDP = "127.0.0.1:" + s.Port
	return s
}

// Addr is where clients connect (QUIC does not fall back from ::1).
func (s *Site) Addr() string { return s.listenUDP }

// URL is the site's https URL for path, by name so Host matches.
func (s *Site) URL(path string) string { return "https://localhost:" + s.Port + path }

// TLSConfig trusts the site's certificate.
func (s *Site) TLSConfig() *tls.Config {
	return &tls.Config{RootCAs: s.Roots, ServerName: "localhost"}
}

// H3Client speaks HTTP/3 only; dials counts the QUIC connections it opens.
func (s *Site) H3Client(t testing.TB, dials *int) *http.Client {
	t.Helper()
	tr := &http3.Transport{
		TLSClientConfig: s.TLSConfig(),
		Dial: func(ctx context.Context, _ string, tlsCfg *tls.Config, cfg *quic.Config) (*quic.Conn, error) {
			if dials != nil {
				*dials++
			}
			return quic.DialAddrEarly(ctx, s.Addr(), tlsCfg, cfg)
		},
	}
	t.Cleanup(func() { tr.Close() })
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// H3ClientFrom is an HTTP/3 client of the site whose packets come from ip
// (any address of 127.0.0.0/8 reaches the site on loopback), for what the
// edge keys by client address.
func (s *Site) H3ClientFrom(t testing.TB, ip string) *http.Client {
	t.Helper()
	pc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.ParseIP(ip)})
	if err != nil {
		t.Fatal(err)
	}
	qt := &quic.Transport{Conn: pc}
	t.Cleanup(func() { qt.Close() })
	to, err := net.ResolveUDPAddr("udp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	tr := &http3.Transport{
		TLSClientConfig: s.TLSConfig(),
		Dial: func(ctx context.Context, _ string, tlsCfg *tls.Config, cfg *quic.Config) (*quic.Conn, error) {
			return qt.DialEarly(ctx, to, tlsCfg, cfg)
		},
	}
	t.Cleanup(func() { tr.Close() })
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// DialWebTransport opens a session on path.
func (s *Site) DialWebTransport(t testing.TB, ctx context.Context, path string, hdr http.Header) (*http.Response, *webtransport.Session, error) {
	t.Helper()
	d := &webtransport.Transport{
		TLSClientConfig: s.TLSConfig(),
		QUICConfig:      &quic.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true},
		DialAddr: func(ctx context.Context, _ string, tlsCfg *tls.Config, cfg *quic.Config) (*quic.Conn, error) {
			return quic.DialAddrEarly(ctx, s.Addr(), tlsCfg, cfg)
		},
	}
	t.Cleanup(func() { d.Close() })
	return d.Dial(ctx, s.URL(path), hdr)
}

// Metric reads one series from the admin /metrics endpoint, e.g.
// `lastmile_quic_connections_total`, or 0 if absent.
func (s *Site) Metric(t testing.TB, series string) float64 {
	t.Helper()
	return Metric(t, s.Admin, series)
}
