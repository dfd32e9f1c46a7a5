package quicedge_test

import (
	"bytes"
	"context"
	"testing"
	"time"

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
