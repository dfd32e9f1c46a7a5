package anycast

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	"github.com/lastmile-edge/lastmile/internal/wtclient"
	_ "github.com/lastmile-edge/lastmile/modules/quicedge"
	"github.com/lastmile-edge/lastmile/modules/wtsession"
)

// heldOrigin answers each request only when the test releases its path,
// so a request stays in flight at the edge for as long as the test says.
type heldOrigin struct {
	arrived chan string
	release map[string]chan struct{}
}

func startHeldOrigin(t *testing.T, paths ...string) (*heldOrigin, string) {
	t.Helper()
	o := &heldOrigin{arrived: make(chan string, len(paths)), release: map[string]chan struct{}{}}
	for _, p := range paths {
		o.release[p] = make(chan struct{})
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rel, ok := o.release[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		o.arrived <- r.URL.Path
		select {
		case <-rel:
			w.Write([]byte("done " + r.URL.Path))
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { // unblock a handler a failed test left waiting
		for _, rel := range o.release {
			select {
			case <-rel:
			default:
				close(rel)
			}
		}
	})
	return o, srv.Listener.Addr().String()
}

type slowResult struct {
	status int
	body   string
	err    error
}

// A drain takes the node out at once, waits drain_wait, then waits for
// the open WebTransport session (not for drain_timeout) while an
// in-flight request still completes; once the session closes the drain
// completes, and the request still in flight when Caddy stops completes.
func TestDrainWaitsForSessionAndRequests(t *testing.T) {
	const (
		wait    = 200 * time.Millisecond
		timeout = 20 * time.Second // far longer than the test: drained must come from the session's end
	)
	origin, originAddr := startHeldOrigin(t, "/during-drain", "/during-stop")
	s := testcaddy.NewSite(t)
	t.Cleanup(undrain) // the drain belongs to the process
	testcaddy.Run(t, `{
	admin `+s.Admin+`
	servers {
		protocols h1 h2
	}
	quic
	anycast {
		check_interval 50ms
		drain_wait `+wait.String()+`
		drain_timeout `+timeout.String()+`
	}
}
localhost:`+s.Port+` {
	tls `+s.CertFile+` `+s.KeyFile+`
	webtransport /wt {
		session echo
	}
	reverse_proxy `+originAddr+`
}
`)
	admin := "http://" + s.Admin
	await(t, "ready before the drain", 5*time.Second, func() bool { code, _ := readiness(t, s.Admin); return code == http.StatusOK })

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, sess, err := s.DialWebTransport(t, ctx, "/wt", nil)
	if err != nil {
		t.Fatalf("opening the session: %v", err)
	}
	if got, err := wtclient.EchoStream(ctx, sess, []byte("before")); err != nil || string(got) != "before" {
		t.Fatalf("echo before the drain: %q, %v", got, err)
	}
	await(t, "the edge counts the session", 5*time.Second, func() bool { return wtsession.OpenSessions() == 1 })

	// Two requests in flight over TCP (h2): one the origin answers during
	// the drain, one it answers only once Caddy is stopping.
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: s.Roots, ServerName: "localhost"},
		ForceAttemptHTTP2: true,
	}}
	t.Cleanup(client.CloseIdleConnections)
	slow := func(path string) <-chan slowResult {
		out := make(chan slowResult, 1)
		go func() {
			resp, err := client.Get(s.URL(path))
			if err != nil {
				out <- slowResult{err: err}
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			out <- slowResult{resp.StatusCode, string(b), err}
		}()
		return out
	}
	during, atStop := slow("/during-drain"), slow("/during-stop")
	for range 2 {
		select {
		case <-origin.arrived:
		case <-ctx.Done():
			t.Fatal("the requests did not reach the origin")
		}
	}

	// The drain: not ready in its own answer and on /lastmile/ready at once.
	start := time.Now()
	resp := post(t, admin+"/lastmile/drain")
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("drain answered %d, want 503 (not ready)", resp.StatusCode)
	}
	if code, st := readiness(t, s.Admin); code != http.StatusServiceUnavailable || st.Ready || !st.Draining || st.DrainPhase != phaseMoving {
		t.Fatalf("right after the drain: %d %+v, want 503, draining, %q", code, st, phaseMoving)
	}
	drained := make(chan Status, 1)
	go func() { // a second drain (idempotent) that answers once drained
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, admin+"/lastmile/drain?wait=1", nil)
		resp, err := http.DefaultClient.Do(req)
		var st Status
		if err == nil {
			json.NewDecoder(resp.Body).Decode(&st)
			resp.Body.Close()
		}
		drained <- st
	}()

	// After drain_wait the drain waits for the session, and keeps waiting
	// while the session is open: the request finishing meanwhile does not
	// end it.
	await(t, "the drain waits for the session", wait+5*time.Second, func() bool {
		_, st := readiness(t, s.Admin)
		return st.DrainPhase == phaseFinishing
	})
	if since := time.Since(start); since < wait {
		t.Fatalf("waiting for sessions %s after the drain, before drain_wait %s", since, wait)
	}
	close(origin.release["/during-drain"])
	select {
	case r := <-during:
		if r.err != nil || r.status != http.StatusOK || r.body != "done /during-drain" {
			t.Fatalf("request in flight during the drain: %d %q %v", r.status, r.body, r.err)
		}
	case <-ctx.Done():
		t.Fatal("the request in flight during the drain did not finish")
	}
	if got, err := wtclient.EchoStream(ctx, sess, []byte("draining")); err != nil || string(got) != "draining" {
		t.Fatalf("the session during the drain: %q, %v", got, err)
	}
	select {
	case st := <-drained:
		t.Fatalf("drain?wait=1 answered %+v while the session is open", st)
	default:
	}
	if _, st := readiness(t, s.Admin); st.DrainPhase != phaseFinishing {
		t.Fatalf("with the session open: phase %q, want %q", st.DrainPhase, phaseFinishing)
	}

	// The session ends: the drain completes soon after, long before
	// drain_timeout.
	closed := time.Now()
	sess.CloseWithError(0, "")
	select {
	case st := <-drained:
		if st.DrainPhase != phaseDrained || st.Ready {
			t.Fatalf("drain?wait=1 answered %+v, want drained and not ready", st)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("not drained within 5s of the session's end")
	}
	t.Logf("drained %s after the session closed (%s after the drain)", time.Since(closed).Round(time.Millisecond), time.Since(start).Round(time.Millisecond))

	// The supervisor's stop: caddy.Stop closes the listeners and returns
	// while the servers shut down with Caddy's grace period (eternal here),
	// which lets the request still in flight complete.
	if err := caddy.Stop(); err != nil {
		t.Fatalf("caddy.Stop: %v", err)
	}
	await(t, "the listener closes", 5*time.Second, func() bool {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+s.Port, time.Second)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	close(origin.release["/during-stop"])
	select {
	case r := <-atStop:
		if r.err != nil || r.status != http.StatusOK || r.body != "done /during-stop" {
			t.Fatalf("request in flight at the stop: %d %q %v", r.status, r.body, r.err)
		}
	case <-ctx.Done():
		t.Fatal("the request in flight at the stop did not finish")
	}
}
