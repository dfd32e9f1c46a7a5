package httpcache

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	"github.com/lastmile-edge/lastmile/internal/testcert"
	_ "github.com/lastmile-edge/lastmile/modules/quicedge" // the quic app: HTTP/3
)

// settingQPACKMaxTableCapacity is SETTINGS_QPACK_MAX_TABLE_CAPACITY (RFC 9204 §5).
const settingQPACKMaxTableCapacity = 0x1

// protocols are the ways browsers reach the edge.
var protocols = []struct{ name, proto string }{
	{"h1", "HTTP/1.1"}, {"h2", "HTTP/2.0"}, {"h3", "HTTP/3.0"},
}

// tlsEdge is the cache as browsers reach it: HTTP/1.1 and HTTP/2 over TLS
// on TCP, HTTP/3 on the same port over UDP (the quic app).
type tlsEdge struct {
	port, admin string
	clients     map[string]*http.Client // by protocol name: h1, h2, h3
}

// startTLSCache runs `edge_cache { options }` + reverse_proxy to origin
// (host:port) for https://localhost.
func startTLSCache(t *testing.T, origin, options string) *tlsEdge {
	t.Helper()
	c := testcert.Write(t)
	certFile, keyFile, pool := c.CertFile, c.KeyFile, c.Pool
	port, adminPort := testcaddy.FreeTCPAndUDPPort(t), testcaddy.FreePort(t)
	testcaddy.Run(t, tlsEdgeGlobals(adminPort)+fmt.Sprintf(`https://localhost:%s {
	tls %s %s
	edge_cache {
%s
	}
	reverse_proxy %s
}
`, port, certFile, keyFile, options, origin))

	return newTLSEdge(t, port, "http://127.0.0.1:"+adminPort, pool)
}

// tlsEdgeGlobals is the global options block of a TLS edge whose admin
// endpoint is on adminPort: TCP serves HTTP/1.1 and HTTP/2, the quic app
// HTTP/3.
func tlsEdgeGlobals(adminPort string) string {
	return fmt.Sprintf(`{
	admin 127.0.0.1:%s
	auto_https off
	persist_config off
	servers {
		protocols h1 h2
	}
	quic
}
`, adminPort)
}

// newTLSEdge has clients of each protocol for the edge on port.
func newTLSEdge(t *testing.T, port, admin string, pool *x509.CertPool) *tlsEdge {
	addr := "127.0.0.1:" + port
	tlsConf := &tls.Config{RootCAs: pool, ServerName: "localhost"}
	tcp := func(h1 bool) *http.Client {
		tr := &http.Transport{
			TLSClientConfig: tlsConf.Clone(), ForceAttemptHTTP2: !h1,
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, network, addr)
			},
		}
		if h1 {
			tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
		}
		if h1 {
			tr.MaxIdleConnsPerHost = 64
		}
		t.Cleanup(tr.CloseIdleConnections)
		return &http.Client{Transport: tr, Timeout: 10 * time.Second}
	}
	h3 := &http3.Transport{
		TLSClientConfig: tlsConf.Clone(),
		// A QPACK dynamic table as Chromium offers: hits then give quic-go
		// their fields as a list (fieldsResponseWriter).
		AdditionalSettings: map[uint64]uint64{settingQPACKMaxTableCapacity: 64 << 10},
		Dial: func(ctx context.Context, _ string, tlsCfg *tls.Config, cfg *quic.Config) (*quic.Conn, error) {
			return quic.DialAddrEarly(ctx, addr, tlsCfg, cfg)
		},
	}
	t.Cleanup(func() { h3.Close() })
	return &tlsEdge{port: port, admin: admin, clients: map[string]*http.Client{
		"h1": tcp(true), "h2": tcp(false), "h3": {Transport: h3, Timeout: 10 * time.Second},
	}}
}

// get requests target (path and query) over protocol, sent byte for byte
// as written, checking that the protocol was the one spoken.
func (e *tlsEdge) get(t *testing.T, protocol, proto, target string, header ...string) result {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "https://localhost:"+e.port+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Opaque: the clients send it as the request target unchanged, where
	// a parsed path would be re-encoded.
	req.URL.Opaque, req.URL.RawQuery, _ = strings.Cut(target, "?")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := e.clients[protocol].Do(req)
	if err != nil {
		t.Fatalf("%s GET %s: %v", protocol, target, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s GET %s: body: %v", protocol, target, err)
	}
	if resp.Proto != proto {
		t.Fatalf("%s GET %s: spoke %s", protocol, target, resp.Proto)
	}
	return result{resp.StatusCode, resp.Header, string(body)}
}

// hostPort is an httptest server's address for reverse_proxy.
func hostPort(url string) string { return strings.TrimPrefix(url, "http://") }
