package wtproxy

import (
	"context"
	"testing"
	"time"

	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/testcert"
	"github.com/lastmile-edge/lastmile/internal/wtclient"
)

// Sessions share upstream connections up to sessions_per_connection; a
// connection's sessions stay independent.
func TestSessionsShareUpstreamConnections(t *testing.T) {
	cert := testcert.Write(t)
	up := startUpstream(t, cert, nil)
	e := startEdge(t, cert, up.addr, "sessions_per_connection 2")
	newSeries := `lastmile_webtransport_proxy_dial_seconds_count{conn="new"}`
	reusedSeries := `lastmile_webtransport_proxy_dial_seconds_count{conn="reused"}`
	newBefore, reusedBefore := e.metric(t, newSeries), e.metric(t, reusedSeries)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	a := e.mustDial(t, ctx, "/echo/a")
	b := e.mustDial(t, ctx, "/echo/b")
	c := e.mustDial(t, ctx, "/echo/c")
	if got := e.metric(t, newSeries) - newBefore; got != 2 {
		t.Errorf("3 sessions at 2 per connection dialled %v connections, want 2", got)
	}
	if got := e.metric(t, reusedSeries) - reusedBefore; got != 1 {
		t.Errorf("%v sessions reused a connection, want 1", got)
	}
	// Closing one session of a shared connection leaves the other working.
	a.CloseWithError(0, "")
	receive(t, up.closed, "first session's end")
	for name, s := range map[string]*webtransport.Session{"b": b, "c": c} {
		if got, err := wtclient.EchoStream(ctx, s, []byte(name)); err != nil || string(got) != name {
			t.Fatalf("session %s after a neighbour closed: %q, %v", name, got, err)
		}
	}
}

// An upstream without WebTransport flow control refuses a second session
// on a connection: the edge gives each session its own connection.
func TestUpstreamThatCannotShareGetsConnectionPerSession(t *testing.T) {
	cert := testcert.Write(t)
	up := startUpstream(t, cert, nil, func(s *webtransport.Server) { s.Config = nil })
	e := startEdge(t, cert, up.addr, "sessions_per_connection 4")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, name := range []string{"a", "b", "c"} {
		s := e.mustDial(t, ctx, "/echo/"+name)
		if got, err := wtclient.EchoStream(ctx, s, []byte(name)); err != nil || string(got) != name {
			t.Fatalf("session %s: %q, %v", name, got, err)
		}
	}
}
