package quic

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A server's run loop packs once packAfterFinishedStreams streams were finished,
// without waiting for the goroutines runnable before it (lastmile patch).
func TestSendBatcherPacksAfterEnoughStreams(t *testing.T) {
	b := newSendBatcher()
	b.answering = true // without its yielder: only the streams can end a wait
	closed := make(chan struct{}, 1)
	closed <- struct{}{}
	for range packAfterFinishedStreams - 1 {
		b.streamFinished()
	}
	require.False(t, b.wait(closed), "packed before packAfterFinishedStreams streams were finished")

	b.finished.Store(0)
	done := make(chan bool)
	go func() { done <- b.wait(make(chan struct{})) }()
	for range packAfterFinishedStreams {
		b.streamFinished()
	}
	require.True(t, <-done)
}

// A connection that has finished no stream (WebTransport sessions only)
// yields in the run loop and packs, without a yielder; its first pack with
// a finished stream starts the yielder, and packs with only ACKs after it
// leave the connection answering.
func TestSendBatcherYieldsInlineUntilAnswering(t *testing.T) {
	b := newSendBatcher() // no yielder: a wait for it would never end
	closed := make(chan struct{}, 1)
	closed <- struct{}{}
	require.True(t, b.wait(closed), "a connection without finished streams waited for a yielder")
	b.streamFinished()
	require.True(t, b.wait(closed), "the first finished stream waited for a yielder that is not started")

	stop := make(chan struct{})
	defer close(stop)
	giveUp := make(chan struct{}) // ends a wait that no yielder would end
	defer time.AfterFunc(10*time.Second, func() { close(giveUp) }).Stop()
	b.packing(stop)
	require.True(t, b.answering, "a pack with a finished stream left the connection not answering")
	require.True(t, b.wait(giveUp), "the yielder was not started")
	b.packing(stop)
	require.True(t, b.answering, "a pack with only ACKs made the connection yield inline again")
	require.True(t, b.wait(giveUp), "a second wait gets its own yield")
}

func TestSendBatcherWaitEndsOnClose(t *testing.T) {
	b := newSendBatcher()
	b.answering = true // without its yielder, which would report
	closeChan := make(chan struct{}, 1)
	closeChan <- struct{}{}
	require.False(t, b.wait(closeChan))
}
