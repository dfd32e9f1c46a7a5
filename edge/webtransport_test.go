package main

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/wtclient"
)

func (e *testEdge) wtDial(t *testing.T, ctx context.Context, path string, hdr http.Header) (*http.Response, *webtransport.Session, error) {
	t.Helper()
	return e.site.DialWebTransport(t, ctx, path, hdr)
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
