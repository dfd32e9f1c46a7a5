package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
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
		At   int64  `json:"at"` // ms since the epoch, in the page
	} `json:"events"`
	Statuses []string `json:"statuses"`
	Error    string   `json:"error"`
	Started  int64    `json:"started"` // ms since the epoch, in the page
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
	origin, route := startNewsOrigin(t)
	e := startEdgeWith(t, withRoutes(route))

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

// startNewsOrigin starts the site's SSE origin, publishing on channel
// news every 50 ms while the test runs (the edge keeps the last 16, so
// each subscription starts with a replay, then live ones), and gives the
// Caddyfile route fanning it out on /live.
func startNewsOrigin(t *testing.T) (*sseorigin.Origin, string) {
	t.Helper()
	origin := sseorigin.New()
	srv := httptest.NewServer(origin)
	t.Cleanup(srv.Close)
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
	return origin, `
	webtransport /live {
		session fanout ` + srv.URL + `/events/{channel}
	}`
}

// udpBlockedFront serves the edge's TCP port on another port whose UDP
// side swallows every packet, as a firewall that drops UDP: a browser
// there has WebTransport but no QUIC handshake ever completes.
func udpBlockedFront(t *testing.T, e *testEdge) string {
	t.Helper()
	for range 20 {
		door := openTierDoor(t, "127.0.0.1:"+e.Port)
		hole, err := net.ListenPacket("udp", door.addr())
		if err != nil { // the port is taken on UDP: another one
			door.shut()
			continue
		}
		t.Cleanup(func() { hole.Close() })
		go func() {
			buf := make([]byte, 2048)
			for {
				if _, _, err := hole.ReadFrom(buf); err != nil {
					return
				}
			}
		}()
		_, port, _ := net.SplitHostPort(door.addr())
		return port
	}
	t.Fatal("no port free for the UDP black hole")
	return ""
}

// fallbackWithin bounds how long subscribe() may take to deliver its
// first event when UDP is dropped: Chromium gives up a QUIC handshake
// that gets no answer after about 4 s (Chromium 156; its handshake
// timeout is at most 10 s), then the SSE request takes a round trip.
const fallbackWithin = 20 * time.Second

// A page that has WebTransport but cannot reach the edge over UDP (page
// and events served over TCP only, every UDP packet to the port dropped)
// still gets its events over SSE on HTTP/2: subscribe() falls back by
// itself within a bounded time, and a resubscription goes to SSE at once
// and resumes after the event it names.
func TestChromiumSubscribeFallsBackToSSEWhenUDPIsBlocked(t *testing.T) {
	requireBrowser(t)
	_, route := startNewsOrigin(t)
	// No Alt-Svc: the page's origin must not learn of the edge's
	// reachable UDP port.
	e := startEdgeWith(t, func(s string) string { return strings.Replace(s, "\talt_svc 24h", route, 1) })
	front := udpBlockedFront(t, e)
	sse := e.counter(t, `lastmile_fanout_events_delivered_total{transport="sse"}`)

	const want = 8 // the resumed run starts after the first's fifth-last
	var res struct {
		UDPBlocked struct {
			Protocol        string        `json:"protocol"`
			HasWebTransport bool          `json:"hasWebTransport"`
			Runs            subscribeRuns `json:"runs"`
		} `json:"udpBlocked"`
	}
	runLivePage(t, e, &res, "FANOUT_PATH=/live", "CHANNEL=news", "EVENTS="+strconv.Itoa(want),
		"UDP_BLOCKED_ORIGIN=https://localhost:"+front, "TIMEOUT_MS="+strconv.Itoa(int((fallbackWithin+5*time.Second).Milliseconds())))
	got := res.UDPBlocked
	if got.Protocol != "h2" || !got.HasWebTransport {
		t.Fatalf("page over %q with WebTransport %v: want an HTTP/2 page in a browser that has WebTransport", got.Protocol, got.HasWebTransport)
	}
	for i, run := range []*subscribeRun{got.Runs.First, got.Runs.Resumed} {
		if run == nil || run.Error != "" || len(run.Events) != want {
			t.Fatalf("run %d: %+v", i, run)
		}
		// The first run tries WebTransport; the resumed one goes straight
		// to SSE, the page having learnt that WebTransport does not connect.
		if tried := slices.Contains(run.Statuses, "webtransport:connecting"); tried != (i == 0) || !slices.Contains(run.Statuses, "sse:live") {
			t.Errorf("run %d: statuses %v, want sse:live, after webtransport:connecting only in the first run", i, run.Statuses)
		}
		if took := time.Duration(run.Events[0].At-run.Started) * time.Millisecond; took > fallbackWithin {
			t.Errorf("run %d: first event after %v, want within %v", i, took, fallbackWithin)
		} else {
			t.Logf("run %d: first event %v after subscribe(), statuses %v", i, took, run.Statuses)
		}
		ids := run.ids(t)
		for k := 1; k < len(ids); k++ {
			if ids[k] != ids[k-1]+1 {
				t.Errorf("run %d: ids %v out of order, duplicated or missing", i, ids)
				break
			}
		}
	}
	if first, resumed := got.Runs.First.ids(t), got.Runs.Resumed.ids(t); resumed[0] != first[want-5]+1 {
		t.Errorf("resumed after event %d at event %d", first[want-5], resumed[0])
	}
	if got := sse.delta(t); got < 2*want {
		t.Errorf("the edge delivered %v events over SSE, want at least %d", got, 2*want)
	}
}
