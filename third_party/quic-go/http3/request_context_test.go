package http3

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/stretchr/testify/require"
)

// lastmile patch: the request's context is its stream's, with the
// connection's values (requestContext).

type connValueKey struct{}

// serveOneRequest serves a HEAD request on a new connection with a handler
// that hands its request's context over and waits for release; it returns
// the context, the client's request stream and its connection.
func serveOneRequest(t *testing.T, release <-chan struct{}) (context.Context, *quic.Stream, *quic.Conn) {
	t.Helper()
	clientConn, serverConn := newConnPair(t)
	str, err := clientConn.OpenStream()
	require.NoError(t, err)
	_, err = str.Write(encodeRequest(t, httptest.NewRequest(http.MethodHead, "https://www.example.com", nil)))
	require.NoError(t, err)
	ctxChan := make(chan context.Context, 1)
	s := &Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctxChan <- r.Context()
			<-release
		}),
		ConnContext: func(ctx context.Context, _ *quic.Conn) context.Context {
			return context.WithValue(ctx, connValueKey{}, "conn")
		},
	}
	go s.ServeQUICConn(serverConn)
	select {
	case ctx := <-ctxChan:
		return ctx, str, clientConn
	case <-time.After(time.Second):
		t.Fatal("the handler was not called")
		return nil, nil, nil
	}
}

func requireDone(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(time.Second):
		t.Fatal("the request's context is not done")
	}
	require.ErrorIs(t, ctx.Err(), context.Canceled)
}

// A stream the client resets: the request's context, and what a handler
// derived from it, are done with the reset as their cause.
func TestRequestContextDoneWithItsStream(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	ctx, str, _ := serveOneRequest(t, release)
	require.Equal(t, "conn", ctx.Value(connValueKey{}), "ConnContext's value")
	child, cancelChild := context.WithCancel(ctx)
	defer cancelChild()
	afterFunc := make(chan struct{})
	context.AfterFunc(ctx, func() { close(afterFunc) })
	require.NoError(t, ctx.Err())

	str.CancelRead(1337) // STOP_SENDING: the server resets its side

	requireDone(t, ctx)
	requireDone(t, child)
	select {
	case <-afterFunc:
	case <-time.After(time.Second):
		t.Fatal("AfterFunc of the request's context not called")
	}
	var streamErr *quic.StreamError
	require.ErrorAs(t, context.Cause(ctx), &streamErr, "the stream's reset is the cause")
	require.Equal(t, quic.StreamErrorCode(1337), streamErr.ErrorCode)
	require.ErrorAs(t, context.Cause(child), &streamErr)
}

// The connection's closing ends its requests' contexts.
func TestRequestContextDoneWithItsConnection(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	ctx, _, clientConn := serveOneRequest(t, release)
	require.NoError(t, clientConn.CloseWithError(0, ""))
	requireDone(t, ctx)
}

// A response sent whole ends its request's context, as upstream's
// cancelation on the stream's end did.
func TestRequestContextDoneWithItsResponse(t *testing.T) {
	release := make(chan struct{})
	ctx, _, _ := serveOneRequest(t, release)
	close(release)
	requireDone(t, ctx)
	require.ErrorIs(t, context.Cause(ctx), context.Canceled)
}
