package wtsession_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	_ "github.com/caddyserver/caddy/v2/modules/standard"
	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	"github.com/lastmile-edge/lastmile/internal/wtclient"
	_ "github.com/lastmile-edge/lastmile/modules/quicedge"
)

// run serves an echo WebTransport endpoint on /wt with options.
func run(t testing.TB, options ...string) *testcaddy.Site {
	t.Helper()
	return runQUIC(t, "", options...)
}

// runQUIC is run with the quic app's options quic.
func runQUIC(t testing.TB, quic string, options ...string) *testcaddy.Site {
	t.Helper()
	s := testcaddy.NewSite(t)
	testcaddy.Run(t, `{
	admin `+s.Admin+`
	servers {
		protocols h1 h2
	}
	quic {
		`+quic+`
	}
}
localhost:`+s.Port+` {
	tls `+s.CertFile+` `+s.KeyFile+`
	webtransport /wt {
		`+strings.Join(options, "\n\t\t")+`
		session echo
	}
	respond "not a session"
}
`)
	return s
}

// A page from another site may not open sessions: the refusal is a 403,
// at once, and is counted; the site's own pages and non-browser clients
// (no Origin) may.
func TestRefusesForeignOrigin(t *testing.T) {
	s := run(t)
	const series = `lastmile_webtransport_sessions_refused_total{reason="origin"}`
	refused := s.Metric(t, series)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, _, err := s.DialWebTransport(t, ctx, "/wt", http.Header{"Origin": {"https://evil.example"}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign origin: want 403, got %v, %v", resp, err)
	}
	if got := s.Metric(t, series) - refused; got != 1 {
		t.Errorf("refused{origin} grew by %v, want 1", got)
	}
	for _, hdr := range []http.Header{{"Origin": {"https://localhost:" + s.Port}}, nil} {
		_, sess, err := s.DialWebTransport(t, ctx, "/wt", hdr)
		if err != nil {
			t.Fatalf("Origin %q: %v", hdr.Get("Origin"), err)
		}
		sess.CloseWithError(0, "")
	}
}

// One client cannot hold more sessions than the limit (429); a closed
// session frees its place.
func TestSessionLimitPerClient(t *testing.T) {
	s := run(t, "max_sessions_per_client 2")
	const series = `lastmile_webtransport_sessions_refused_total{reason="limit"}`
	refused := s.Metric(t, series)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var open []*webtransport.Session
	for i := range 2 {
		_, sess, err := s.DialWebTransport(t, ctx, "/wt", nil)
		if err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		defer sess.CloseWithError(0, "")
		open = append(open, sess)
	}
	resp, _, err := s.DialWebTransport(t, ctx, "/wt", nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("third session: want 429, got %v, %v", resp, err)
	}
	if got := s.Metric(t, series) - refused; got != 1 {
		t.Errorf("refused{limit} grew by %v, want 1", got)
	}
	open[0].CloseWithError(0, "")
	// The server frees the place when it sees the session end.
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, sess, err := s.DialWebTransport(t, ctx, "/wt", nil)
		if err == nil {
			sess.CloseWithError(0, "")
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no session after one of two closed: %v", err)
		}
	}
}

// A session with no activity for idle_timeout is closed with the idle
// code; one in use stays open.
func TestIdleTimeout(t *testing.T) {
	s := run(t, "idle_timeout 1s")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, busy, err := s.DialWebTransport(t, ctx, "/wt", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.CloseWithError(0, "")
	start := time.Now() // before the server opens the idle session
	_, idle, err := s.DialWebTransport(t, ctx, "/wt", nil)
	if err != nil {
		t.Fatal(err)
	}
	// The busy session echoes until the idle one is closed.
	for idle.Context().Err() == nil {
		if _, err := wtclient.EchoStream(ctx, busy, []byte("ping")); err != nil {
			t.Fatalf("busy session: %v (the idle one is still open after %v)", err, time.Since(start))
		}
	}
	if d := time.Since(start); d < time.Second {
		t.Fatalf("idle session closed after %v of a 1 s idle timeout", d)
	}
	var sessErr *webtransport.SessionError
	if _, err := idle.AcceptStream(ctx); !errors.As(err, &sessErr) || sessErr.ErrorCode != 0x1d1e || !sessErr.Remote {
		t.Fatalf("idle session closed with %v, want the server's session error 0x1d1e", err)
	}
	if busy.Context().Err() != nil {
		t.Fatal("busy session was closed")
	}
}
