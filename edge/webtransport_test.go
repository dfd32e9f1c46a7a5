package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

func (e *testEdge) wtDial(t *testing.T, ctx context.Context, path string, hdr http.Header) (*http.Response, *webtransport.Session, error) {
	t.Helper()
	return e.site.DialWebTransport(t, ctx, path, hdr)
}

var echoStream = testcaddy.EchoStream

func echoUniStream(ctx context.Context, sess *webtransport.Session, msg []byte) ([]byte, error) {
	str, err := sess.OpenUniStreamSync(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := str.Write(msg); err != nil {
		return nil, err
	}
	if err := str.Close(); err != nil {
		return nil, err
	}
	rstr, err := sess.AcceptUniStream(ctx)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(rstr)
}

// echoDatagram retries, since datagrams may be lost.
func echoDatagram(ctx context.Context, sess *webtransport.Session, msg []byte) ([]byte, error) {
	for {
		if err := sess.SendDatagram(msg); err != nil {
			return nil, err
		}
		rctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		got, err := sess.ReceiveDatagram(rctx)
		cancel()
		if err == nil {
			return got, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
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
	if got, err := echoStream(ctx, sess, msg); err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("%s: bidirectional echo: %q, %v", tag, trim(got), err)
	}
	msg = []byte("uni " + tag)
	if got, err := echoUniStream(ctx, sess, msg); err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("%s: unidirectional echo: %q, %v", tag, trim(got), err)
	}
	msg = []byte("datagram " + tag)
	if got, err := echoDatagram(ctx, sess, msg); err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("%s: datagram echo: %q, %v", tag, trim(got), err)
	}
}

func trim(b []byte) []byte { return b[:min(len(b), 40)] }
