package http3

import (
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/stretchr/testify/require"
)

// lastmile patch: the server's request context is cancelled through the
// tracked stream's AfterFunc (callWhenContextDone).

func TestStateTrackingStreamCallsWhenContextDone(t *testing.T) {
	client, _ := newStreamPair(t)
	str := newStateTrackingStream(client, &mockStreamClearer{}, func([]byte) error { return nil })

	called := make(chan struct{})
	str.callWhenContextDone(func() { close(called) })
	select {
	case <-called:
		t.Fatal("called while the stream's send side is open")
	default:
	}

	str.CancelWrite(quic.StreamErrorCode(1)) // cancels the stream's context
	select {
	case <-called:
	case <-time.After(time.Second):
		t.Fatal("not called when the stream's context was done")
	}
}

func TestStateTrackingStreamCallsAtOnceWhenContextDoneAlready(t *testing.T) {
	client, _ := newStreamPair(t)
	str := newStateTrackingStream(client, &mockStreamClearer{}, func([]byte) error { return nil })
	require.NoError(t, str.Close())
	<-client.Context().Done()
	// The AfterFunc runs in a goroutine of its own: wait until it has.
	require.Eventually(t, func() bool {
		str.mx.Lock()
		defer str.mx.Unlock()
		return str.sendCtxDone
	}, time.Second, time.Millisecond)

	called := false
	str.callWhenContextDone(func() { called = true })
	require.True(t, called)
}

// lastmile patch: Close does the send side's done work itself instead of
// leaving it to the goroutine context.AfterFunc would start.
func TestStateTrackingStreamCloseRunsSendSideDoneAtOnce(t *testing.T) {
	client, _ := newStreamPair(t)
	str := newStateTrackingStream(client, &mockStreamClearer{}, func([]byte) error { return nil })
	called := false
	str.callWhenContextDone(func() { called = true })

	require.NoError(t, str.Close())
	require.True(t, called, "the request's context is cancelled by Close itself")
	require.Error(t, client.Context().Err())
	require.False(t, str.stopAfterFunc(), "an AfterFunc is still registered")
}
