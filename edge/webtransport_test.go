package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/wtclient"
)

func (e *testEdge) wtDial(t *testing.T, ctx context.Context, path string, hdr http.Header) (*http.Response, *webtransport.Session, error) {
	t.Helper()
	d := &webtransport.Transport{
		TLSClientConfig: e.tlsConfig(),
		QUICConfig:      &quic.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true},
		DialAddr: func(ctx context.Context, _ string, tlsCfg *tls.Config, cfg *quic.Config) (*quic.Conn, error) {
			return quic.DialAddrEarly(ctx, e.addr(), tlsCfg, cfg)
		},
	}
	t.Cleanup(func() { d.Close() })
	return d.Dial(ctx, e.URL(path), hdr)
}

func TestWebTransportEcho(t *testing.T) {
	e := startEdge(t)
	opened := e.counter(t, "lastmile_webtransport_sessions_opened_total")
	waitMetric(t, e, "lastmile_webtransport_sessions_open", 0)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	hdr := http.Header{"Origin": {"https://localhost:" + e.Port}}
	resp, sess, err := e.wtDial(t, ctx, "/wt/echo", hdr)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer sess.CloseWithError(0, "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	checkEcho(t, ctx, sess, "before")
	waitMetric(t, e, "lastmile_webtransport_sessions_open", 1)
	if got := opened.delta(t); got != 1 {
		t.Errorf("sessions_opened_total grew by %v, want 1", got)
	}
	sess.CloseWithError(0, "")
	waitMetric(t, e, "lastmile_webtransport_sessions_open", 0)
}

func checkEcho(t *testing.T, ctx context.Context, sess *webtransport.Session, tag string) {
	t.Helper()
	msg := []byte("bidi " + tag + " " + strings.Repeat("x", 5000))
	if got, err := wtclient.EchoStream(ctx, sess, msg); err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("%s: bidirectional echo: %q, %v", tag, trim(got), err)
	}
	msg = []byte("uni " + tag)
	if got, err := wtclient.EchoUniStream(ctx, sess, msg); err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("%s: unidirectional echo: %q, %v", tag, trim(got), err)
	}
	msg = []byte("datagram " + tag)
	if got, err := wtclient.EchoDatagram(ctx, sess, msg); err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("%s: datagram echo: %q, %v", tag, trim(got), err)
	}
}

func trim(b []byte) []byte { return b[:min(len(b), 40)] }

// A page from another site may not open sessions: the refusal is a status,
// at once, and is counted.
func TestWebTransportRefusesForeignOrigin(t *testing.T) {
	e := startEdge(t)
	refused := e.counter(t, `lastmile_webtransport_sessions_refused_total{reason="origin"}`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	resp, _, err := e.wtDial(t, ctx, "/wt/echo", http.Header{"Origin": {"https://evil.example"}})
	if err == nil {
		t.Fatal("session from a foreign origin was accepted")
	}
	if resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("want 403, got %v (%v)", resp, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("refusal took %v", d)
	}
	if got := refused.delta(t); got != 1 {
		t.Errorf("refused{origin} grew by %v, want 1", got)
	}
}

// One client cannot hold more sessions than the configured limit.
func TestWebTransportSessionLimitPerClient(t *testing.T) {
	e := startEdgeWith(t, func(s string) string {
		return strings.Replace(s, wtLimitLine, "max_sessions_per_client 2", 1)
	})
	refused := e.counter(t, `lastmile_webtransport_sessions_refused_total{reason="limit"}`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range 2 {
		_, sess, err := e.wtDial(t, ctx, "/wt/echo", nil)
		if err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		defer sess.CloseWithError(0, "")
	}
	resp, _, err := e.wtDial(t, ctx, "/wt/echo", nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("third session: want 429, got %v, %v", resp, err)
	}
	if got := refused.delta(t); got != 1 {
		t.Errorf("refused{limit} grew by %v, want 1", got)
	}
}

// A session with no activity for idle_timeout is closed with the idle
// code; one in use stays open.
func TestWebTransportIdleTimeout(t *testing.T) {
	e := startEdgeWith(t, func(s string) string {
		return strings.Replace(s, wtLimitLine, wtLimitLine+"\n\t\tidle_timeout 1s", 1)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, busy, err := e.wtDial(t, ctx, "/wt/echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.CloseWithError(0, "")
	_, idle, err := e.wtDial(t, ctx, "/wt/echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for time.Since(start) < 2500*time.Millisecond {
		if _, err := wtclient.EchoDatagram(ctx, busy, []byte("ping")); err != nil {
			t.Fatalf("busy session: %v", err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if idle.Context().Err() == nil {
		t.Fatal("idle session still open 2.5 s into a 1 s idle timeout")
	}
	var sessErr *webtransport.SessionError
	if _, err := idle.AcceptStream(ctx); !errors.As(err, &sessErr) || sessErr.ErrorCode != 0x1d1e || !sessErr.Remote {
		t.Fatalf("idle session closed with %v, want the server's session error 0x1d1e", err)
	}
	if busy.Context().Err() != nil {
		t.Fatal("busy session was closed")
	}
}
