package clienttcp

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
)

// accepted wraps a real listener, with the wrappers of under first, with
// lw, connects to it and returns the server side of the connection.
func accepted(t *testing.T, lw *ListenerWrapper, under func(net.Listener) net.Listener) net.Conn {
	t.Helper()
	c, _ := acceptedPair(t, lw, under)
	return c
}

// acceptedPair is accepted, with the client side of the connection.
func acceptedPair(t *testing.T, lw *ListenerWrapper, under func(net.Listener) net.Listener) (server, client net.Conn) {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := lw.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	if err := lw.Validate(); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	wrapped := lw.WrapListener(under(ln))
	t.Cleanup(func() { wrapped.Close() })
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	c, err := wrapped.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, client
}

func bare(ln net.Listener) net.Listener { return ln }

func TestUnavailableCongestionControlIsAConfigError(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	lw := &ListenerWrapper{CongestionControl: "warp-drive"}
	if err := lw.Provision(ctx); err == nil || !strings.Contains(err.Error(), "not available") {
		t.Fatalf("Provision: %v, want an error naming what is available", err)
	}
}
