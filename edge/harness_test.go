package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"github.com/lastmile-edge/lastmile/internal/testcert"
)

// wtLimitLine is the default Caddyfile's WebTransport session limit, which
// tests edit.
const wtLimitLine = "max_sessions_per_client {$LASTMILE_WT_SESSIONS_PER_CLIENT:16}"

// testEdge is the real edge, run in this process from the default Caddyfile
// with a fresh certificate and free ports, in front of the demo origin.
type testEdge struct {
	Port      string // TCP and UDP
	AdminAddr string
	Origin    *originServer
	CertPool  *x509.CertPool
	SPKIHash  string // base64 SHA-256 of the certificate's public key
	CertHash  []byte // SHA-256 of the DER certificate
	Caddyfile string
}

func startEdge(t *testing.T) *testEdge {
	return startEdgeWith(t, func(s string) string { return s })
}

// startEdgeWith runs the default Caddyfile after edit; each hook runs with the
// demo origin's address before the config is loaded.
func startEdgeWith(t *testing.T, edit func(string) string, hooks ...func(originAddr string)) *testEdge {
	t.Helper()
	e := &testEdge{}
	dir := t.TempDir()
	cert := testcert.Write(t)
	certFile, keyFile := cert.CertFile, cert.KeyFile
	e.CertPool = cert.Pool
	spki, der := sha256.Sum256(cert.Cert.RawSubjectPublicKeyInfo), sha256.Sum256(cert.Cert.Raw)
	e.SPKIHash, e.CertHash = base64.StdEncoding.EncodeToString(spki[:]), der[:]
	origin, err := startOrigin("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { origin.Close() })
	e.Origin = origin
	e.Port = freePort(t)
	e.AdminAddr = "127.0.0.1:" + freePort(t)
	t.Setenv("LASTMILE_ORIGIN", origin.Addr)
	t.Setenv("LASTMILE_ADMIN", e.AdminAddr)
	t.Setenv("LASTMILE_HTTPS_PORT", e.Port)
	t.Setenv("LASTMILE_HTTP_PORT", freePort(t))
	t.Setenv("LASTMILE_SITE", "localhost")
	t.Setenv("LASTMILE_TLS_CERT", certFile)
	t.Setenv("LASTMILE_TLS_KEY", keyFile)
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	for _, hook := range hooks {
		hook(origin.Addr)
	}
	e.Caddyfile = edit(string(defaultCaddyfile))
	if err := loadCaddyfile([]byte(e.Caddyfile)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := caddy.Stop(); err != nil {
			t.Errorf("stopping edge: %v", err)
		}
	})
	return e
}

// freePort returns a port free on TCP and UDP alike.
func freePort(t *testing.T) string {
	t.Helper()
	for range 50 {
		ln, err := net.Listen("tcp", ":0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		pc, err := net.ListenPacket("udp", ":"+strconv.Itoa(port))
		ln.Close()
		if err != nil {
			continue
		}
		pc.Close()
		return strconv.Itoa(port)
	}
	t.Fatal("no port free on both TCP and UDP")
	return ""
}

func (e *testEdge) tlsConfig() *tls.Config {
	return &tls.Config{RootCAs: e.CertPool, ServerName: "localhost"}
}

// URL is the edge's https URL for path, by name so Host matches the site.
func (e *testEdge) URL(path string) string { return "https://localhost:" + e.Port + path }

// addr is where clients connect: QUIC does not fall back from ::1.
func (e *testEdge) addr() string { return "127.0.0.1:" + e.Port }

// h3Client speaks HTTP/3 only.
func (e *testEdge) h3Client(t *testing.T) (*http.Client, *http3.Transport) {
	tr := &http3.Transport{
		TLSClientConfig: e.tlsConfig(),
		Dial: func(ctx context.Context, _ string, tlsCfg *tls.Config, cfg *quic.Config) (*quic.Conn, error) {
			return quic.DialAddrEarly(ctx, e.addr(), tlsCfg, cfg)
		},
	}
	t.Cleanup(func() { tr.Close() })
	return &http.Client{Transport: tr, Timeout: 20 * time.Second}, tr
}

// tcpClient speaks HTTP/2 over TLS, or HTTP/1.1 if h1 is set.
func (e *testEdge) tcpClient(t *testing.T, h1 bool) *http.Client {
	dialer := &net.Dialer{}
	tr := &http.Transport{
		TLSClientConfig: e.tlsConfig(),
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, e.addr())
		},
		ForceAttemptHTTP2: !h1,
	}
	if h1 {
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 20 * time.Second}
}

func get(t *testing.T, c *http.Client, url string) (*http.Response, []byte) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading body: %v", url, err)
	}
	return resp, body
}

// metric returns the value of one series from the admin /metrics endpoint,
// e.g. `lastmile_quic_handshakes_total{result="ok"}`, or 0 if absent.
func (e *testEdge) metric(t *testing.T, series string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + e.AdminAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`)
	m := re.FindSubmatch(body)
	if m == nil {
		return 0
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// counter reads how much a process-wide series grew since it was made:
// earlier tests' edges counted into the same series.
type counter struct {
	e      *testEdge
	series string
	base   float64
}

func (e *testEdge) counter(t *testing.T, series string) counter {
	t.Helper()
	return counter{e, series, e.metric(t, series)}
}

func (c counter) delta(t *testing.T) float64 {
	t.Helper()
	return c.e.metric(t, c.series) - c.base
}

// reload posts a Caddyfile to the admin API, as `lastmile reload` does.
func (e *testEdge) reload(t *testing.T, caddyfile string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+e.AdminAddr+"/load", bytes.NewBufferString(caddyfile))
	req.Header.Set("Content-Type", "text/caddyfile")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("reload: %s: %s", resp.Status, body)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprintf("unexpected error: %v", err))
	}
	return v
}
