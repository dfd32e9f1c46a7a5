package wtproxy

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	"github.com/lastmile-edge/lastmile/internal/wtclient"
)

func TestRelayEchoesStreamsAndDatagrams(t *testing.T) {
	_, e, ctx := relayFixture(t, "")
	toUpstream := e.metric(t, `lastmile_webtransport_proxy_stream_bytes_total{direction="to_upstream"}`)
	s := e.mustDial(t, ctx, "/echo/a")

	// 1 MiB: many buffers, and the stream's buffer grows on the way.
	// No period in a power of two, so a buffer's worth misplaced shows.
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = byte(i) ^ byte(i/251)
	}
	if got, err := wtclient.EchoStream(ctx, s, big); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("bidirectional echo: %d bytes, %v", len(got), err)
	}
	if got, err := wtclient.EchoUniStream(ctx, s, []byte("uni")); err != nil || string(got) != "uni" {
		t.Fatalf("unidirectional echo: %q, %v", got, err)
	}
	if got, err := wtclient.EchoDatagram(ctx, s, []byte("dgram")); err != nil || string(got) != "dgram" {
		t.Fatalf("datagram echo: %q, %v", got, err)
	}
	if got := e.metric(t, `lastmile_webtransport_proxy_stream_bytes_total{direction="to_upstream"}`) - toUpstream; got != float64(len(big)+len("uni")) {
		t.Errorf("stream bytes to upstream grew by %v, want %d", got, len(big)+len("uni"))
	}
	if e.metric(t, `lastmile_webtransport_proxy_datagrams_total{direction="to_client",result="relayed"}`) < 1 {
		t.Error("no datagram counted to the client")
	}
}

// Streams the upstream opens reach the browser, both kinds.
func TestRelayCarriesUpstreamOpenedStreams(t *testing.T) {
	up, e, ctx := relayFixture(t, "")
	s := e.mustDial(t, ctx, "/push")
	uni, err := s.AcceptUniStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(uni); err != nil || string(got) != "uni push" {
		t.Fatalf("pushed uni stream: %q, %v", got, err)
	}
	str, err := s.AcceptStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(str); err != nil || string(got) != "ping" {
		t.Fatalf("pushed bidi stream: %q, %v", got, err)
	}
	str.Write([]byte("pong"))
	str.Close()
	if got := receive(t, up.pushed, "reply on the pushed stream"); got != "pong" {
		t.Fatalf("upstream read %q, want pong", got)
	}
}

// Resets and STOP_SENDING pass through with the application's codes,
// both ways.
func TestRelayPropagatesStreamErrorCodes(t *testing.T) {
	up, e, ctx := relayFixture(t, "")
	s := e.mustDial(t, ctx, "/reset")

	str, err := s.OpenStreamSync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	str.Write([]byte("abcd"))
	str.CancelWrite(0x21)
	var se *webtransport.StreamError
	if err := receive(t, up.streamEr, "upstream's read error"); !errors.As(err, &se) || se.ErrorCode != 0x21 {
		t.Fatalf("upstream's read ended with %v, want reset code 0x21", err)
	}

	in, err := s.AcceptStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(in); !errors.As(err, &se) || se.ErrorCode != 0x43 {
		t.Fatalf("browser's read ended with %v, want reset code 0x43", err)
	}
	// The upstream stopped reading with 0x42: writes fail with it, without
	// the browser having to write first for the relay to notice.
	testcaddy.Eventually(t, 10*time.Second, "browser's write fails with STOP_SENDING 0x42", func() bool {
		_, err := in.Write([]byte("more"))
		return errors.As(err, &se) && se.ErrorCode == 0x42
	})
}

// The session's close code and reason pass through, both ways.
func TestRelayPropagatesSessionClose(t *testing.T) {
	up, e, ctx := relayFixture(t, "")

	s := e.mustDial(t, ctx, "/close")
	str, err := s.OpenStreamSync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	str.Write([]byte("upstream says bye"))
	str.Close()
	<-s.Context().Done()
	var se *webtransport.SessionError
	if err := closeError(s); !errors.As(err, &se) || se.ErrorCode != 0x77 || se.Message != "upstream says bye" {
		t.Fatalf("browser's session ended with %#v, want code 0x77 and the upstream's reason", err)
	}

	s = e.mustDial(t, ctx, "/echo/close")
	if got, err := wtclient.EchoStream(ctx, s, []byte("hi")); err != nil || string(got) != "hi" {
		t.Fatalf("echo: %q, %v", got, err)
	}
	s.CloseWithError(0x88, "browser leaves")
	if err := receive(t, up.closed, "upstream's session end"); !errors.As(err, &se) || se.ErrorCode != 0x88 || se.Message != "browser leaves" {
		t.Fatalf("upstream's session ended with %#v, want code 0x88 and the browser's reason", err)
	}
}

// The upstream sees the path, query, chosen headers and who the client
// is; other headers stay at the edge.
func TestRelayForwardsRequest(t *testing.T) {
	up, e, ctx := relayFixture(t, "forward_headers X-App-Token")
	hdr := http.Header{
		"Origin":          {"https://localhost:" + e.port},
		"Cookie":          {"session=abc"},
		"X-App-Token":     {"t0k"},
		"X-Private":       {"edge only"},
		"X-Forwarded-For": {"6.6.6.6"}, // the client's claim, not trusted
	}
	_, s, err := e.dial(t, ctx, "/echo/room?id=42", hdr)
	if err != nil {
		t.Fatal(err)
	}
	defer s.CloseWithError(0, "")
	r := receive(t, up.requests, "CONNECT at the upstream")
	if got := r.URL.RequestURI(); got != "/echo/room?id=42" {
		t.Errorf("upstream path %q, want /echo/room?id=42", got)
	}
	for name, want := range map[string]string{
		"Origin":            "https://localhost:" + e.port,
		"Cookie":            "session=abc",
		"X-App-Token":       "t0k",
		"X-Private":         "",
		"X-Forwarded-For":   "127.0.0.1",
		"X-Forwarded-Proto": "https",
		"X-Forwarded-Host":  "localhost:" + e.port,
		"Forwarded":         `for=127.0.0.1;host="localhost:` + e.port + `";proto=https`,
	} {
		if got := strings.Join(r.Header.Values(name), ", "); got != want {
			t.Errorf("%s: upstream got %q, want %q", name, got, want)
		}
	}
}
