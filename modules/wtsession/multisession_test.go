package wtsession_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	"github.com/lastmile-edge/lastmile/internal/wtclient"
)

// connect opens one QUIC connection to the edge for many sessions.
func connect(t testing.TB, ctx context.Context, s *testcaddy.Site) *webtransport.ClientConn {
	t.Helper()
	client, conn := dialConn(t, ctx, s)
	t.Cleanup(func() { conn.CloseWithError(0, "") })
	return client
}

// dialConn opens a QUIC connection to the edge, offering session flow
// control.
func dialConn(t testing.TB, ctx context.Context, s *testcaddy.Site) (*webtransport.ClientConn, *quic.Conn) {
	t.Helper()
	client, conn, err := wtclient.Connect(ctx, s.Addr(), &tls.Config{RootCAs: s.TLSConfig().RootCAs, ServerName: "localhost"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return client, conn
}

// echoIsolated runs a stream, a unidirectional stream and a datagram
// through sess, each carrying name: what comes back must be its own.
func echoIsolated(ctx context.Context, sess *webtransport.Session, name string) error {
	for kind, echo := range map[string]func(context.Context, *webtransport.Session, []byte) ([]byte, error){
		"stream": wtclient.EchoStream, "uni stream": wtclient.EchoUniStream, "datagram": wtclient.EchoDatagram,
	} {
		msg := name + " " + kind
		got, err := echo(ctx, sess, []byte(msg))
		if err != nil {
			return fmt.Errorf("%s: %w", msg, err)
		}
		if string(got) != msg {
			return fmt.Errorf("%s: got %q back", msg, got)
		}
	}
	return nil
}

// Sessions on one QUIC connection each get their own streams and
// datagrams, two or many at once.
func TestSessionsShareOneConnection(t *testing.T) {
	s := run(t, "max_sessions_per_client 64") // the sessions of the first run may still be ending
	for _, n := range []int{2, 16} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			client := connect(t, ctx, s)
			opened := s.Metric(t, "lastmile_quic_connections_total")
			var wg sync.WaitGroup
			errs := make(chan error, n)
			for i := range n {
				_, sess, err := client.Dial(ctx, s.URL("/wt"), nil)
				if err != nil {
					t.Fatalf("session %d of %d on one connection: %v", i+1, n, err)
				}
				defer sess.CloseWithError(0, "")
				wg.Go(func() { errs <- echoIsolated(ctx, sess, fmt.Sprintf("session %d", i)) })
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Error(err)
				}
			}
			if grown := s.Metric(t, "lastmile_quic_connections_total") - opened; grown != 0 {
				t.Errorf("%v more connections accepted, want the sessions on the one open", grown)
			}
		})
	}
}

// fillThenRefused opens n sessions on client, then checks that one more
// gets 429 and is counted in series.
func fillThenRefused(t *testing.T, ctx context.Context, s *testcaddy.Site, client *webtransport.ClientConn, n int, series string) []*webtransport.Session {
	t.Helper()
	refused := s.Metric(t, series)
	var open []*webtransport.Session
	for i := range n {
		_, sess, err := client.Dial(ctx, s.URL("/wt"), nil)
		if err != nil {
			t.Fatalf("session %d: %v", i+1, err)
		}
		t.Cleanup(func() { sess.CloseWithError(0, "") })
		open = append(open, sess)
	}
	resp, _, err := client.Dial(ctx, s.URL("/wt"), nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("session %d: want 429, got %v, %v", n+1, resp, err)
	}
	if got := s.Metric(t, series) - refused; got != 1 {
		t.Errorf("%s grew by %v, want 1", series, got)
	}
	return open
}

// A client that offers no per-session flow control gets one session per
// connection: the next is refused with a plain 429 (webtransport-go would
// answer it 200 and then reset it), and the first keeps working.
func TestSessionWithoutFlowControlAlonePerConnection(t *testing.T) {
	s := run(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client, conn, err := wtclient.ConnectOffering(ctx, s.Addr(), &tls.Config{RootCAs: s.TLSConfig().RootCAs, ServerName: "localhost"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.CloseWithError(0, "") })
	open := fillThenRefused(t, ctx, s, client, 1, `lastmile_webtransport_sessions_refused_total{reason="connection"}`)
	if err := echoIsolated(ctx, open[0], "alone"); err != nil {
		t.Errorf("the connection's one session after a refusal: %v", err)
	}
}

// The per-connection cap refuses the next session with 429 and counts it;
// the client's other connections and a freed place are not affected.
func TestSessionCapPerConnection(t *testing.T) {
	s := runQUIC(t, "webtransport_max_sessions_per_connection 2")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := connect(t, ctx, s)
	open := fillThenRefused(t, ctx, s, client, 2, `lastmile_webtransport_sessions_refused_total{reason="connection"}`)
	if err := echoIsolated(ctx, open[1], "second"); err != nil {
		t.Errorf("a refusal disturbed an open session: %v", err)
	}
	_, other, err := connect(t, ctx, s).Dial(ctx, s.URL("/wt"), nil)
	if err != nil {
		t.Fatalf("session on another connection: %v", err)
	}
	other.CloseWithError(0, "")
	open[0].CloseWithError(0, "")
	testcaddy.Eventually(t, 5*time.Second, "a session on the connection after one of two closed", func() bool {
		_, sess, err := client.Dial(ctx, s.URL("/wt"), nil)
		if err != nil {
			return false
		}
		sess.CloseWithError(0, "")
		return true
	})
}

// The per-client limit counts sessions, whether they share a connection
// or not.
func TestSessionLimitPerClientOnOneConnection(t *testing.T) {
	s := run(t, "max_sessions_per_client 2")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	fillThenRefused(t, ctx, s, connect(t, ctx, s), 2, `lastmile_webtransport_sessions_refused_total{reason="limit"}`)
}

// Sessions that shared a connection leave no goroutine behind, on either
// side, once they and the connection are closed.
func TestSharedConnectionLeavesNoGoroutines(t *testing.T) {
	s := run(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	connectSessions := func(n int) *quic.Conn {
		client, conn := dialConn(t, ctx, s)
		for i := range n {
			_, sess, err := client.Dial(ctx, s.URL("/wt"), nil)
			if err != nil {
				t.Fatalf("session %d: %v", i+1, err)
			}
			if err := echoIsolated(ctx, sess, fmt.Sprint(i)); err != nil {
				t.Fatal(err)
			}
			if i%2 == 0 {
				sess.CloseWithError(0, "") // the rest end with the connection
			}
		}
		return conn
	}
	closed := func(conn *quic.Conn) {
		conn.CloseWithError(0, "")
		testcaddy.Eventually(t, 10*time.Second, "sessions and connection ended at the edge", func() bool {
			return s.Metric(t, "lastmile_webtransport_sessions_open") == 0 && s.Metric(t, "lastmile_quic_connections_open") == 0
		})
	}
	// Warm up: the first connection starts what the server keeps.
	closed(connectSessions(1))
	base := runtime.NumGoroutine()
	closed(connectSessions(8))
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before the sessions:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
