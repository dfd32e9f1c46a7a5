package wtproxy

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/quic-go/quic-go/http3"
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
	up := startUpstream(t, cert, nil, func(s *webtransport.Server) {
		s.Config = nil
		s.H3.Handler = answerAfterUpgrade(s.H3.Handler)
	})
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

// answerAfterUpgrade holds back the 200 that webtransport-go v0.13.0's
// Upgrade flushes when it takes the request stream (http3's HTTPStream),
// before it checks whether the connection may carry another session: a
// refusal's reset could then reach the edge after a 200 it took for an
// open session (on a loaded machine), and that session's streams ended
// without a code. The flush fails on a past write deadline; Upgrade's own
// Flush, once it registered the session, sends the 200.
func answerAfterUpgrade(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(heldResponse{w}, r)
	})
}

type heldResponse struct{ http.ResponseWriter }

func (w heldResponse) HTTPStream() *http3.Stream {
	rw := w.ResponseWriter.(interface {
		http3.HTTPStreamer
		SetWriteDeadline(time.Time) error
	})
	rw.SetWriteDeadline(time.Unix(1, 0))
	defer rw.SetWriteDeadline(time.Time{})
	return rw.HTTPStream()
}

func (w heldResponse) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

func (w heldResponse) ReceivedSettings() <-chan struct{} {
	return w.ResponseWriter.(http3.Settingser).ReceivedSettings()
}

func (w heldResponse) Settings() *http3.Settings {
	return w.ResponseWriter.(http3.Settingser).Settings()
}
