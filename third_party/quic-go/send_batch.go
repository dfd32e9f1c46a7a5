package quic

import (
	"runtime"
	"sync/atomic"
)

// lastmile patch: when a server's run loop, woken to send, packs.
//
// It waits until the goroutines runnable when it was woken have run (on a
// server, the handlers of the requests that arrived together), so that one
// pass packs their responses into full packets and one GSO batch. Alone,
// that made the 32 streams of a loopback benchmark travel as one or two
// groups: the peer got nothing until the whole group was answered, then
// all of it, and each side idled while the other worked through its group
// (docs/results/hit-profile.md). So the run loop also packs as soon as
// packAfterFinishedStreams streams were finished (their FIN queued: on an
// HTTP/3 server, responses complete) since it last packed: the first
// responses of a group leave while the rest are still being made. Each
// early pack is one more send, which is worth it only while the peer is
// slower than the server: against quic-go's http3 client (the slower
// side), 3 gained the most; against a frame-level client cheaper than the
// server, as h2load is for HTTP/2, 16 answers 2-19% more 2 KB hits than 3
// and 3-5% fewer than 3 against the slow client
// (docs/BENCHMARKS.md, "HTTP/3 hits: a client cheaper than the server").
// Streams written without being
// finished (WebTransport's, whose writers batch their own writes) do not
// count: packing early split those batches (fan-out's delay p99 rose).
// A connection that has finished no stream yet (WebTransport sessions
// only) yields once in the run loop, as a client does, and has no yielder:
// the handoff to the yielder and back cost fan-out's 625 connections 4-6 ms
// at p50. Its first pack that carries a finished stream starts the yielder,
// and it stays an answering connection: packs that carry only ACKs come
// between its responses, and yielding inline after them lost the early pack
// (HTTP/3 hits 0.93x).
const packAfterFinishedStreams = 16

type sendBatcher struct {
	finished atomic.Int32  // streams finished since the last pack
	full     chan struct{} // packAfterFinishedStreams streams were finished
	yieldReq chan struct{} // to yielder: yield once, then send on yielded
	yielded  chan struct{}
	// answering: a pack carried a finished stream, so this connection
	// answers requests, more may finish while it waits, and its yielder
	// runs. Only the run loop reads and writes it.
	answering bool
}

func newSendBatcher() *sendBatcher {
	return &sendBatcher{
		full:     make(chan struct{}, 1),
		yieldReq: make(chan struct{}, 1),
		yielded:  make(chan struct{}, 1),
	}
}

// yielder yields once per request and reports it. runtime.Gosched puts it on
// the global run queue, which Go's scheduler takes from when the processor's
// own queue is empty, so it reports once the goroutines runnable before it
// have run. The run loop waits on that report rather than yielding itself,
// so that streamFinished can wake it earlier.
func (b *sendBatcher) yielder(done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case <-b.yieldReq:
		}
		runtime.Gosched()
		select {
		case b.yielded <- struct{}{}:
		default:
		}
	}
}

// streamFinished is called when a stream's FIN is queued.
func (b *sendBatcher) streamFinished() {
	if b.finished.Add(1) == packAfterFinishedStreams {
		select {
		case b.full <- struct{}{}:
		default:
		}
	}
}

// wait returns true when the run loop should pack: once the goroutines
// runnable now have run, or once packAfterFinishedStreams streams were
// finished since the last pack; on a connection that is not answering,
// after one yield of its own. It returns false if closeChan fires first. Signals
// left over from an earlier wait are dropped first.
func (b *sendBatcher) wait(closeChan <-chan struct{}) bool {
	if !b.answering {
		runtime.Gosched()
		return true
	}
	select {
	case <-b.full:
	default:
	}
	select {
	case <-b.yielded:
	default:
	}
	if b.finished.Load() >= packAfterFinishedStreams {
		return true
	}
	select {
	case b.yieldReq <- struct{}{}:
	default:
	}
	select {
	case <-b.yielded:
	case <-b.full:
	case <-closeChan:
		return false
	}
	return true
}

// packing is called when the run loop packs what was queued. The first pack
// with a finished stream starts the yielder, which ends with done.
func (b *sendBatcher) packing(done <-chan struct{}) {
	if b.finished.Swap(0) > 0 && !b.answering {
		b.answering = true
		go b.yielder(done)
	}
}
