package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/testcert"
	"github.com/lastmile-edge/lastmile/internal/wtorigin"
)

// liveResult is what web-client/test/edge/live.mjs reports.
type liveResult struct {
	Protocol string `json:"protocol"`
	Relay    struct {
		StreamOK bool   `json:"streamOK"`
		Uni      string `json:"uni"`
		Datagram string `json:"datagram"`
		Error    string `json:"error"`
	} `json:"relay"`
}

// runLivePage runs live.mjs against the edge with env added, and decodes
// what it printed into res.
func runLivePage(t *testing.T, e *testEdge, res any, env ...string) {
	t.Helper()
	requireBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("..", "web-client", "test", "edge", "live.mjs"))
	cmd.Env = append(os.Environ(), append([]string{"EDGE_PORT=" + e.Port, "EDGE_SPKI=" + e.SPKIHash, "CHROMIUM=" + chromiumPath()}, env...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("browser script: %v\n%s", err, out)
	}
	if err := json.Unmarshal(out, res); err != nil {
		t.Fatalf("browser output: %v\n%s", err, out)
	}
	t.Logf("browser saw: %s", out)
}

// appOrigin is the site's own WebTransport application, an echo on
// /wt/app/echo with its own certificate; closed gets how each session
// ended.
type appOrigin struct {
	route  string // the Caddyfile route relaying /wt/app/* to it
	closed chan error
}

func startAppOrigin(t *testing.T) *appOrigin {
	t.Helper()
	cert := testcert.Write(t)
	kp, err := tls.LoadX509KeyPair(cert.CertFile, cert.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := wtorigin.Listen("127.0.0.1:0", kp, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := &appOrigin{closed: make(chan error, 1), route: fmt.Sprintf(`
	webtransport /wt/app/* {
		session proxy https://%s {
			tls_trusted_ca_certs %s
			tls_server_name localhost
		}
	}`, srv.Addr, cert.CertFile)}
	srv.HandleSessions("/wt/app/echo", func(s *webtransport.Session, _ *http.Request) {
		wtorigin.Echo(s)
		_, err := s.AcceptStream(context.Background()) // the session's close error
		a.closed <- err
	})
	srv.Serve()
	t.Cleanup(srv.Close)
	return a
}

// withRoutes adds Caddyfile routes to the default site.
func withRoutes(routes ...string) func(string) string {
	return func(s string) string {
		return strings.Replace(s, "\talt_svc 24h", "\talt_svc 24h"+strings.Join(routes, ""), 1)
	}
}

// A page's WebTransport session on the edge reaches the site's own
// webtransport-go server through `session proxy`: a large bidirectional
// stream, a unidirectional stream each way and datagrams come back
// intact, and the page's close code reaches the origin.
func TestChromiumThroughSessionProxy(t *testing.T) {
	requireBrowser(t)
	app := startAppOrigin(t)
	e := startEdgeWith(t, withRoutes(app.route))
	toUpstream := e.counter(t, `lastmile_webtransport_proxy_stream_bytes_total{direction="to_upstream"}`)
	dgrams := e.counter(t, `lastmile_webtransport_proxy_datagrams_total{direction="to_client",result="relayed"}`)

	var res liveResult
	runLivePage(t, e, &res, "RELAY_PATH=/wt/app/echo")
	if res.Protocol != "h3" {
		t.Errorf("page loaded over %q, want h3", res.Protocol)
	}
	r := res.Relay
	if r.Error != "" || !r.StreamOK || r.Uni != "uni from chromium" || r.Datagram != "datagram from chromium" {
		t.Fatalf("relayed session: %+v", r)
	}
	select {
	case err := <-app.closed:
		var se *webtransport.SessionError
		if !errors.As(err, &se) || se.ErrorCode != 7 || se.Message != "page done" {
			t.Errorf("origin's session ended with %v, want the page's code 7 and reason", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the origin's session did not end after the page closed it")
	}
	if got, want := toUpstream.delta(t), float64(6*40000+len("uni from chromium")); got != want {
		t.Errorf("stream bytes relayed to the origin grew by %v, want %v", got, want)
	}
	if dgrams.delta(t) < 1 {
		t.Error("no datagram relayed to the browser")
	}
}
