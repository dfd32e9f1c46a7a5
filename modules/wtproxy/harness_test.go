package wtproxy

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	_ "github.com/caddyserver/caddy/v2/modules/standard"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	"github.com/lastmile-edge/lastmile/internal/testcert"
	"github.com/lastmile-edge/lastmile/internal/wtclient"
	"github.com/lastmile-edge/lastmile/internal/wtorigin"
	_ "github.com/lastmile-edge/lastmile/modules/quicedge"
	_ "github.com/lastmile-edge/lastmile/modules/wtsession"
)

// upstream is a site's WebTransport server, as the test's origin: what
// it saw is posted on its channels.
type upstream struct {
	addr     string
	stop     func()             // closes the server and its connections
	requests chan *http.Request // CONNECTs of /echo, the first 64
	closed   chan error         // how /echo sessions ended
	streamEr chan error         // how /reset's stream read ended
	sinks    chan *webtransport.Stream
	pushed   chan string // replies to /push's stream
}

// startUpstream starts the upstream; edit, if given, changes its server
// before it serves.
func startUpstream(t testing.TB, cert testcert.Cert, quicConf *quic.Config, edit ...func(*webtransport.Server)) *upstream {
	t.Helper()
	srv, err := wtorigin.Listen("127.0.0.1:0", cert.KeyPair, quicConf)
	if err != nil {
		t.Fatal(err)
	}
	u := &upstream{
		addr:     srv.Addr,
		requests: make(chan *http.Request, 64),
		closed:   make(chan error, 64),
		streamEr: make(chan error, 1),
		sinks:    make(chan *webtransport.Stream, 1),
		pushed:   make(chan string, 1),
	}
	srv.HandleSessions("/echo/", func(s *webtransport.Session, r *http.Request) {
		select {
		case u.requests <- r:
		default: // a benchmark's many sessions: nobody looks
		}
		wtorigin.Echo(s)
		u.closed <- closeError(s)
	})
	srv.HandleSessions("/discard", func(s *webtransport.Session, _ *http.Request) { wtorigin.Discard(s) })
	srv.HandleSessions("/source", func(s *webtransport.Session, _ *http.Request) { wtorigin.Source(s) })
	srv.Mux.HandleFunc("/refuse", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
	})
	srv.HandleSessions("/reset", func(s *webtransport.Session, _ *http.Request) {
		str, err := s.AcceptStream(s.Context())
		if err != nil {
			return
		}
		_, err = io.Copy(io.Discard, str)
		u.streamEr <- err
		// Now the other way: this side resets and stops its stream.
		out, err := s.OpenStreamSync(s.Context())
		if err != nil {
			return
		}
		out.Write([]byte("x"))
		out.CancelWrite(0x43)
		out.CancelRead(0x42)
		<-s.Context().Done()
	})
	srv.HandleSessions("/close", func(s *webtransport.Session, _ *http.Request) {
		str, err := s.AcceptStream(s.Context())
		if err != nil {
			return
		}
		reason, _ := io.ReadAll(str)
		s.CloseWithError(0x77, string(reason))
	})
	srv.HandleSessions("/push", func(s *webtransport.Session, _ *http.Request) {
		uni, err := s.OpenUniStreamSync(s.Context())
		if err != nil {
			return
		}
		uni.Write([]byte("uni push"))
		uni.Close()
		str, err := s.OpenStreamSync(s.Context())
		if err != nil {
			return
		}
		str.Write([]byte("ping"))
		str.Close()
		reply, _ := io.ReadAll(str)
		u.pushed <- string(reply)
		<-s.Context().Done()
	})
	srv.HandleSessions("/sink", func(s *webtransport.Session, _ *http.Request) {
		str, err := s.AcceptStream(s.Context())
		if err != nil {
			return
		}
		u.sinks <- str
		<-s.Context().Done()
	})
	for _, f := range edit {
		f(srv.WT)
	}
	srv.Serve()
	u.stop = srv.Close
	t.Cleanup(u.stop)
	return u
}

// edge is lastmile in-process with one webtransport route relaying to an
// upstream.
type edge struct {
	port, admin string
	cert        testcert.Cert
	clients     []*quic.Conn
}

// closeClients closes the test's connections to the edge.
func (e *edge) closeClients() {
	for _, c := range e.clients {
		c.CloseWithError(0, "")
	}
	e.clients = nil
}

// startEdge runs the edge with `session proxy <upstream> {<options>}` on
// every path.
func startEdge(t testing.TB, cert testcert.Cert, upstreamAddr, options string) *edge {
	t.Helper()
	e := &edge{port: testcaddy.FreeTCPAndUDPPort(t), admin: testcaddy.FreePort(t), cert: cert}
	testcaddy.Run(t, e.caddyfile(upstreamAddr, options))
	return e
}

// caddyfile is the edge's config: `session proxy <upstream> {<options>}`
// on every path.
func (e *edge) caddyfile(upstreamAddr, options string) string {
	return fmt.Sprintf(`{
	admin 127.0.0.1:%s
	persist_config off
	auto_https disable_redirects
	servers {
		protocols h1 h2
	}
	quic
}
localhost:%s {
	tls %s %s
	webtransport /* {
		session proxy https://%s {
			tls_trusted_ca_certs %s
			tls_server_name localhost
			%s
		}
	}
}
`, e.admin, e.port, e.cert.CertFile, e.cert.KeyFile, upstreamAddr, e.cert.CertFile, options)
}

// dial opens a session through the edge as a browser would: on a
// connection that outlives the session, so its close reaches the edge.
func (e *edge) dial(t testing.TB, ctx context.Context, path string, hdr http.Header) (*http.Response, *webtransport.Session, error) {
	t.Helper()
	client, conn, err := clientConn(ctx, "127.0.0.1:"+e.port, e.cert)
	if err != nil {
		return nil, nil, err
	}
	e.clients = append(e.clients, conn)
	t.Cleanup(func() { conn.CloseWithError(0, "") })
	return client.Dial(ctx, "https://localhost:"+e.port+path, hdr)
}

// clientConn is a WebTransport client connection to addr, which serves
// cert for localhost.
func clientConn(ctx context.Context, addr string, cert testcert.Cert) (*webtransport.ClientConn, *quic.Conn, error) {
	return wtclient.Connect(ctx, addr, &tls.Config{RootCAs: cert.Pool, ServerName: "localhost"}, nil)
}

// mustDial is dial for sessions the test needs.
func (e *edge) mustDial(t testing.TB, ctx context.Context, path string) *webtransport.Session {
	t.Helper()
	_, s, err := e.dial(t, ctx, path, nil)
	if err != nil {
		t.Fatalf("dialing %s: %v", path, err)
	}
	t.Cleanup(func() { s.CloseWithError(0, "") })
	return s
}

// metric is a series' value on the admin endpoint, 0 if absent.
func (e *edge) metric(t testing.TB, series string) float64 {
	t.Helper()
	return testcaddy.Metric(t, "127.0.0.1:"+e.admin, series)
}

// receive takes one value from ch within a deadline.
func receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10s", what)
		panic("unreachable")
	}
}

// relayFixture starts an upstream and the edge in front of it with proxy
// options, and gives a context for the test's steps.
func relayFixture(t *testing.T, options string) (*upstream, *edge, context.Context) {
	t.Helper()
	cert := testcert.Write(t)
	up := startUpstream(t, cert, nil)
	e := startEdge(t, cert, up.addr, options)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return up, e, ctx
}
