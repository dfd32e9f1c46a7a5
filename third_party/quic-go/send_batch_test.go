package quic

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A server's run loop packs once packAfterFinishedStreams streams were finished,
// without waiting for the goroutines runnable before it (lastmile patch).
func TestSendBatcherPacksAfterEnoughStreams(t *testing.T) {
	b := newSendBatcher() // no yielder: only the streams can end a wait
	closed := make(chan struct{}, 1)
	closed <- struct{}{}
	for range packAfterFinishedStreams - 1 {
		b.streamFinished()
	}
	require.False(t, b.wait(closed), "packed before packAfterFinishedStreams streams were finished")

	b.packing()
	done := make(chan bool)
	go func() { done <- b.wait(make(chan struct{})) }()
	for range packAfterFinishedStreams {
		b.streamFinished()
	}
	require.True(t, <-done)
}

// Without enough streams, the run loop packs once the yielder has yielded.
func TestSendBatcherPacksAfterYielding(t *testing.T) {
	b := newSendBatcher()
	stop := make(chan struct{})
	defer close(stop)
	go b.yielder(stop)
	b.streamFinished()
	require.True(t, b.wait(make(chan struct{})))
	b.packing()
	require.True(t, b.wait(make(chan struct{})), "a second wait gets its own yield")
}

func TestSendBatcherWaitEndsOnClose(t *testing.T) {
	b := newSendBatcher()
	b.streamFinished() // answering: the wait is for the yielder, which never reports
	closeChan := make(chan struct{}, 1)
	closeChan <- struct{}{}
	require.False(t, b.wait(closeChan))
}

// A connection that has finished no stream (WebTransport sessions) yields
// in the run loop and packs, without the yielder; once a pack carried a
// finished stream, its waits are the yielder's, also after packs without.
func TestSendBatcherYieldsInlineUntilAnswering(t *testing.T) {
	b := newSendBatcher() // no yielder: a wait for it would never end
	closed := make(chan struct{}, 1)
	closed <- struct{}{}
	require.True(t, b.wait(closed), "a connection without finished streams waited for the yielder")
	b.packing()

	b.streamFinished()
	require.False(t, b.wait(closed), "a finished stream did not send the wait to the yielder")
	b.packing()
	closed <- struct{}{}
	require.False(t, b.wait(closed), "after a pack with a finished stream, the next wait is not the yielder's")
	b.packing()
	closed <- struct{}{}
	require.False(t, b.wait(closed), "a pack with only ACKs made the connection yield inline again")
}
