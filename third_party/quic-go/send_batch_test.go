package quic

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A server's run loop packs once packAfterStreams streams were given data,
// without waiting for the goroutines runnable before it (lastmile patch).
func TestSendBatcherPacksAfterEnoughStreams(t *testing.T) {
	b := newSendBatcher() // no yielder: only the streams can end a wait
	closed := make(chan struct{}, 1)
	closed <- struct{}{}
	for range packAfterStreams - 1 {
		b.streamQueued()
	}
	require.False(t, b.wait(closed), "packed before packAfterStreams streams had data")

	b.packing()
	done := make(chan bool)
	go func() { done <- b.wait(make(chan struct{})) }()
	for range packAfterStreams {
		b.streamQueued()
	}
	require.True(t, <-done)
}

// Without enough streams, the run loop packs once the yielder has yielded.
func TestSendBatcherPacksAfterYielding(t *testing.T) {
	b := newSendBatcher()
	stop := make(chan struct{})
	defer close(stop)
	go b.yielder(stop)
	b.streamQueued()
	require.True(t, b.wait(make(chan struct{})))
	b.packing()
	require.True(t, b.wait(make(chan struct{})), "a second wait gets its own yield")
}

func TestSendBatcherWaitEndsOnClose(t *testing.T) {
	b := newSendBatcher()
	closeChan := make(chan struct{}, 1)
	closeChan <- struct{}{}
	require.False(t, b.wait(closeChan))
}
