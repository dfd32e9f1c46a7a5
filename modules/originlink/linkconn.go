package originlink

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"golang.org/x/net/http2"
)

// linkConn is one multiplexed connection to an origin: HTTP/2 over TCP or
// HTTP/3 over QUIC.
type linkConn interface {
	RoundTrip(*http.Request) (*http.Response, error)
	// usable reports whether it can take a new request.
	usable() bool
	// streams is the number of requests it carries now.
	streams() int
	// ping checks it is alive and returns the round trip.
	ping(ctx context.Context) (time.Duration, error)
	// shutdown lets its requests finish, then closes it.
	shutdown(ctx context.Context)
	close()
}

type h2Conn struct{ cc *http2.ClientConn }

func (c h2Conn) RoundTrip(r *http.Request) (*http.Response, error) { return c.cc.RoundTrip(r) }
func (c h2Conn) usable() bool                                      { return c.cc.CanTakeNewRequest() && !c.cc.State().Closed }
func (c h2Conn) streams() int {
	st := c.cc.State()
	return st.StreamsActive + st.StreamsPending
}
func (c h2Conn) ping(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	err := c.cc.Ping(ctx)
	return time.Since(start), err
}
func (c h2Conn) shutdown(ctx context.Context) {
	if c.cc.Shutdown(ctx) != nil {
		c.cc.Close()
	}
}
func (c h2Conn) close() { c.cc.Close() }

// h3Conn is an HTTP/3 link; QUIC keep-alives keep it warm, and its RTT is
// QUIC's own estimate.
type h3Conn struct {
	qc       *quic.Conn
	cc       *http3.ClientConn
	inFlight *atomic.Int64
}

func (c h3Conn) RoundTrip(r *http.Request) (*http.Response, error) {
	c.inFlight.Add(1)
	resp, err := c.cc.RoundTrip(r)
	if err != nil {
		c.inFlight.Add(-1)
		return nil, err
	}
	resp.Body = &countedBody{ReadCloser: resp.Body, done: func() { c.inFlight.Add(-1) }}
	return resp, nil
}
func (c h3Conn) usable() bool { return c.qc.Context().Err() == nil }
func (c h3Conn) streams() int { return int(c.inFlight.Load()) }
func (c h3Conn) ping(context.Context) (time.Duration, error) {
	if err := context.Cause(c.qc.Context()); err != nil {
		return 0, err
	}
	return c.qc.ConnectionStats().SmoothedRTT, nil
}
func (c h3Conn) shutdown(ctx context.Context) {
	for c.inFlight.Load() > 0 && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
	}
	c.close()
}
func (c h3Conn) close() { c.qc.CloseWithError(0, "") }

// countedBody runs done once when the body is closed.
type countedBody struct {
	io.ReadCloser
	done func()
	once atomic.Bool
}

func (b *countedBody) Close() error {
	if b.once.CompareAndSwap(false, true) {
		b.done()
	}
	return b.ReadCloser.Close()
}
