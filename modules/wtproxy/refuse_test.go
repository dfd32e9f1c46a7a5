package wtproxy

import (
	"context"
	"errors"
	"net"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	"github.com/lastmile-edge/lastmile/internal/testcert"
	"github.com/lastmile-edge/lastmile/internal/wtclient"
)

// An upstream that answers the CONNECT with an error status: the browser
// gets that status at once, counted.
func TestRefusalCarriesUpstreamStatus(t *testing.T) {
	cert := testcert.Write(t)
	up := startUpstream(t, cert, nil)
	e := startEdge(t, cert, up.addr, "")
	series := `lastmile_webtransport_proxy_refused_total{reason="status"}`
	before := e.metric(t, series)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	resp, _, err := e.dial(t, ctx, "/refuse", nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("want the upstream's 403, got %v (%v)", resp, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("refusal took %v", d)
	}
	if got := e.metric(t, series) - before; got != 1 {
		t.Errorf("refused{status} grew by %v, want 1", got)
	}
}

// An upstream that does not answer: 504 once the dial timeout is over,
// not later, counted.
func TestRefusalWhenUpstreamIsDown(t *testing.T) {
	cert := testcert.Write(t)
	// A UDP socket that reads nothing: no handshake, and no ICMP error.
	silent, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	e := startEdge(t, cert, silent.LocalAddr().String(), "dial_timeout 300ms")
	series := `lastmile_webtransport_proxy_refused_total{reason="timeout"}`
	before := e.metric(t, series)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	resp, _, err := e.dial(t, ctx, "/echo/x", nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusGatewayTimeout {
		t.Fatalf("want 504, got %v (%v)", resp, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("refusal took %v with a 300ms dial timeout", d)
	}
	if got := e.metric(t, series) - before; got != 1 {
		t.Errorf("refused{timeout} grew by %v, want 1", got)
	}
}

// An upstream whose connection is lost mid-session: the browser's session
// is closed with the relay's code, at once.
func TestUpstreamLossClosesSession(t *testing.T) {
	up, e, ctx := relayFixture(t, "")
	s := e.mustDial(t, ctx, "/echo/loss")
	if got, err := wtclient.EchoStream(ctx, s, []byte("hi")); err != nil || string(got) != "hi" {
		t.Fatalf("echo: %q, %v", got, err)
	}
	up.stop()
	<-s.Context().Done()
	var se *webtransport.SessionError
	if err := closeError(s); !errors.As(err, &se) || se.ErrorCode != codeUpstreamGone {
		t.Fatalf("session ended with %v, want code %#x", err, codeUpstreamGone)
	}
}

// Sessions that end, however they end, leave no goroutine behind.
func TestNoGoroutineLeftBehind(t *testing.T) {
	up, e, ctx := relayFixture(t, "")
	session := func(path string) *webtransport.Session {
		_, s, err := e.dial(t, ctx, path, nil)
		if err != nil {
			t.Fatalf("dialing %s: %v", path, err)
		}
		return s
	}
	// Warm up: the pooled upstream connection stays, by design.
	s := session("/echo/warm")
	wtclient.EchoStream(ctx, s, []byte("warm"))
	s.CloseWithError(0, "")
	receive(t, up.closed, "warm-up session's end")
	testcaddy.Eventually(t, 5*time.Second, "warm-up session relay ended", func() bool {
		return e.metric(t, "lastmile_webtransport_proxy_sessions_open") == 0
	})
	e.closeClients()
	testcaddy.Eventually(t, 5*time.Second, "warm-up client connection closed", func() bool {
		return e.metric(t, "lastmile_quic_connections_open") == 0
	})
	base := runtime.NumGoroutine()

	for range 5 {
		s := session("/echo/leak")
		if got, err := wtclient.EchoStream(ctx, s, []byte("x")); err != nil || string(got) != "x" {
			t.Fatalf("echo: %q, %v", got, err)
		}
		wtclient.EchoUniStream(ctx, s, []byte("u"))
		str, _ := s.OpenStreamSync(ctx) // left open: the close must end it
		str.Write([]byte("pending"))
		s.CloseWithError(0, "")
		receive(t, up.closed, "session's end at the upstream")
		up := session("/close")
		str, _ = up.OpenStreamSync(ctx)
		str.Write([]byte("bye"))
		str.Close()
		<-up.Context().Done()
		if resp, _, err := e.dial(t, ctx, "/refuse", nil); err == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("refusal: %v, %v", resp, err)
		}
	}
	e.closeClients()
	testcaddy.Eventually(t, 10*time.Second, "goroutines back to the baseline", func() bool {
		return runtime.NumGoroutine() <= base
	})
	if open := e.metric(t, "lastmile_webtransport_proxy_sessions_open"); open != 0 {
		t.Errorf("sessions_open %v after every session ended", open)
	}
}
