package quichook

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// serve listens on loopback, each connection getting cc's controller.
func serve(t *testing.T, cc *Conn) (*quic.Transport, *quic.Listener) {
	t.Helper()
	srv := &quic.Transport{Conn: listenLoopback(t), ConnContext: func(ctx context.Context, _ *quic.ClientInfo) (context.Context, error) {
		return cc.Context(ctx), nil
	}}
	t.Cleanup(func() { srv.Close() })
	ln, err := srv.Listen(selfSigned(t), &quic.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return srv, ln
}

func clientTLS() *tls.Config {
	return &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"test"}}
}

func listenLoopback(t *testing.T) *net.UDPConn {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// A connection that migrates gets a fresh controller for its new path: a
// model of the old path would pace the new one at a rate it never measured
// (RFC 9000, section 9.4, has the controller reset).
func TestMigrationStartsFreshController(t *testing.T) {
	var made atomic.Int32
	cc := New("recorder", func(congestion.Conn) congestion.Controller {
		made.Add(1)
		return &recorder{}
	}, false)
	srv, ln := serve(t, cc)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tr1, tr2 := &quic.Transport{Conn: listenLoopback(t)}, &quic.Transport{Conn: listenLoopback(t)}
	t.Cleanup(func() { tr1.Close(); tr2.Close() })
	conn, err := tr1.Dial(ctx, srv.Conn.LocalAddr(), clientTLS(), &quic.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseWithError(0, "")
	sconn, err := ln.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	exchange := func() {
		t.Helper()
		str, err := conn.OpenUniStream()
		if err != nil {
			t.Fatal(err)
		}
		str.Write(make([]byte, 10<<10))
		str.Close()
		sstr, err := sconn.AcceptUniStream(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := io.Copy(io.Discard, sstr); err != nil || n != 10<<10 {
			t.Fatalf("server read %d bytes: %v", n, err)
		}
	}
	exchange()
	path, err := conn.AddPath(tr2)
	if err != nil {
		t.Fatal(err)
	}
	if err := path.Probe(ctx); err != nil {
		t.Fatal(err)
	}
	if err := path.Switch(); err != nil {
		t.Fatal(err)
	}
	exchange()
	if upstreamQuicGo {
		checkUpstream(t, cc)
		return
	}
	deadline := time.Now().Add(5 * time.Second)
	for cc.Stats().Paths != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("server made %d controllers after the client migrated, want 2 (stats %+v)", made.Load(), cc.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if made.Load() != 2 {
		t.Fatalf("%d controllers made, want 2", made.Load())
	}
}
