package quicedge_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	"github.com/lastmile-edge/lastmile/internal/wtclient"
)

// A connection accepted under config A serves its next requests with
// config B after a reload, on the same connection, and its WebTransport
// session goes on.
func TestReloadHandsConnectionsToTheNewConfig(t *testing.T) {
	s := testcaddy.NewSite(t)
	testcaddy.Run(t, siteConfig(s, `respond "config A"`))
	dials := 0
	c := s.H3Client(t, &dials)
	if body := get(t, c, s.URL("/")); body != "config A" {
		t.Fatalf("before the reload: %q", body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, sess, err := s.DialWebTransport(t, ctx, "/wt", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.CloseWithError(0, "")
	echo := func(msg string) {
		t.Helper()
		if got, err := wtclient.EchoStream(ctx, sess, []byte(msg)); err != nil || !bytes.Equal(got, []byte(msg)) {
			t.Fatalf("echo %q: %q, %v", msg, got, err)
		}
	}
	echo("before the reload")

	testcaddy.Run(t, siteConfig(s, `respond "config B"`))
	if body := get(t, c, s.URL("/")); body != "config B" {
		t.Fatalf("after the reload, on the kept connection: %q", body)
	}
	if dials != 1 {
		t.Fatalf("the client dialed %d connections, want the one kept across the reload", dials)
	}
	echo("after the reload")
	if body := get(t, s.H3Client(t, nil), s.URL("/")); body != "config B" {
		t.Fatalf("a new connection after the reload: %q", body)
	}
}

// A connection's sessions count across a reload: a connection accepted
// under config A opens more sessions under config B, up to B's cap, and
// the sessions it opened under A count toward that cap.
func TestReloadKeepsSessionsPerConnection(t *testing.T) {
	s := testcaddy.NewSite(t)
	testcaddy.Run(t, siteConfig(s, `respond "config A"`))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client, conn, err := wtclient.Connect(ctx, s.Addr(), &tls.Config{RootCAs: s.TLSConfig().RootCAs, ServerName: "localhost"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseWithError(0, "")
	dial := func() (*http.Response, *webtransport.Session, error) { return client.Dial(ctx, s.URL("/wt"), nil) }
	_, before, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	defer before.CloseWithError(0, "")

	capped := strings.Replace(siteConfig(s, `respond "config B"`), "grace_period 1s", "grace_period 1s\n\t\twebtransport_max_sessions_per_connection 2", 1)
	testcaddy.Run(t, capped)
	_, after, err := dial()
	if err != nil {
		t.Fatalf("second session, after the reload: %v", err)
	}
	defer after.CloseWithError(0, "")
	for _, sess := range []*webtransport.Session{before, after} {
		if got, err := wtclient.EchoStream(ctx, sess, []byte("hi")); err != nil || string(got) != "hi" {
			t.Fatalf("echo: %q, %v", got, err)
		}
	}
	if resp, _, err := dial(); err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("third session under a cap of 2: want 429, got %v, %v", resp, err)
	}
}
