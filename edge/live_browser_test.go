package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/sseorigin"
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
	// subscribe() over WebTransport (stream and datagram delivery) and,
	// in a page without WebTransport, over SSE.
	WebTransport subscribeRuns `json:"webTransport"`
	Datagrams    subscribeRuns `json:"datagrams"`
	SSE          subscribeRuns `json:"sse"`
}

// subscribeRuns is a subscription until it got its events, and a second
// one resuming after the first one's fifth-last event.
type subscribeRuns struct {
	First, Resumed *subscribeRun
}

type subscribeRun struct {
	Events []struct {
		ID   string `json:"id"`
		Data string `json:"data"`
	} `json:"events"`
	Statuses []string `json:"statuses"`
	Error    string   `json:"error"`
}

// ids are the run's event ids as numbers, in arrival order.
func (r *subscribeRun) ids(t *testing.T) []int {
	t.Helper()
	var ids []int
	for _, e := range r.Events {
		n, err := strconv.Atoi(e.ID)
		if err != nil || e.Data != "event "+e.ID {
			t.Errorf("event %+v: not one the origin sent", e)
		}
		ids = append(ids, n)
	}
	return ids
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
	srv, err := wtorigin.Listen("127.0.0.1:0", cert.KeyPair, nil)
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

// subscribe() in Chromium against `session fanout` over HTTP/3, with a
// real SSE origin: events arrive in order without duplicates over
// WebTransport streams, over datagrams, and over SSE in a page without
// WebTransport; a resubscription from an event id the edge still keeps
// continues right after it; and all of it comes from one origin stream.
func TestChromiumSubscribesThroughSessionFanout(t *testing.T) {
	requireBrowser(t)
	origin := sseorigin.New()
	srv := httptest.NewServer(origin)
	t.Cleanup(srv.Close)
	e := startEdgeWith(t, withRoutes(`
	webtransport /live {
		session fanout `+srv.URL+`/events/{channel}
	}`))
	// The origin emits every 50 ms while the test runs: the edge keeps the
	// last 16, so each subscription starts with a replay, then live ones.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for n := 1; ; n++ {
			origin.Publish("news", "", "event "+strconv.Itoa(n))
			select {
			case <-tick.C:
			case <-ctx.Done():
				return
			}
		}
	}()

	const want = 20 // more than the replay: live events too
	var res liveResult
	runLivePage(t, e, &res, "FANOUT_PATH=/live", "CHANNEL=news", "EVENTS="+strconv.Itoa(want))
	for name, runs := range map[string]subscribeRuns{"webtransport": res.WebTransport, "datagrams": res.Datagrams, "sse": res.SSE} {
		transport := name
		if transport == "datagrams" {
			transport = "webtransport"
		}
		for i, run := range []*subscribeRun{runs.First, runs.Resumed} {
			if run == nil || run.Error != "" || len(run.Events) != want {
				t.Errorf("%s run %d: %+v", name, i, run)
				continue
			}
			if !slices.Contains(run.Statuses, transport+":live") {
				t.Errorf("%s run %d: statuses %v, want %s:live", name, i, run.Statuses, transport)
			}
			ids := run.ids(t)
			for k := 1; k < len(ids); k++ {
				// Datagrams may be lost, never reordered on loopback's
				// one path; streams and SSE lose nothing.
				if ids[k] <= ids[k-1] || (name != "datagrams" && ids[k] != ids[k-1]+1) {
					t.Errorf("%s run %d: ids %v out of order, duplicated or missing", name, i, ids)
					break
				}
			}
		}
		if runs.First != nil && runs.Resumed != nil && len(runs.First.Events) == want && len(runs.Resumed.Events) > 0 && name != "datagrams" {
			if after, got := runs.First.ids(t)[want-5], runs.Resumed.ids(t)[0]; got != after+1 {
				t.Errorf("%s: resumed after event %d at event %d, want %d", name, after, got, after+1)
			}
		}
	}
	if got := origin.Opened(); got != 1 {
		t.Errorf("the origin saw %d event streams, want 1 for all the subscriptions", got)
	}
}
