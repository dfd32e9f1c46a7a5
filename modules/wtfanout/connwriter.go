package wtfanout

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Deliveries to the subscriptions of one QUIC connection are written by
// one goroutine, the connection's writer, which writes every subscription
// with a queued event before it yields: quic-go's run loop then packs
// their STREAM frames into one packet and one sendmsg, where a goroutine
// per subscription made it send each frame alone (the run loop is the
// goroutine the first write wakes, and Go runs it next). Small writes
// return once queued (third_party/quic-go.patch: WriteWithLimit, which
// webtransport-go uses for flow-controlled sessions, waited for the
// packer). A write that cannot finish within connWriteBudget (the
// client's flow control is spent, or it reads slowly) is handed to the
// subscription's own goroutine, the slow path, until it caught up: a slow
// consumer delays its connection's other subscriptions once, by at most
// the budget, and never another connection's.

// connWriteBudget is how long the connection's writer waits for one
// subscription's client before handing its write over. A write the client
// takes at once finishes in microseconds; 5 ms is far above that on a
// loaded edge, and well under a fan-out's delivery goal of 250 ms.
const connWriteBudget = 5 * time.Millisecond

// connWriters are the writers of the QUIC connections with fan-out
// sessions, by connection (see connKey).
var connWriters = struct {
	sync.Mutex
	m map[string]*connWriter
}{m: make(map[string]*connWriter)}

// connWriter writes the subscriptions of one QUIC connection.
type connWriter struct {
	key   string
	users int // sessions using it, under connWriters' lock
	wake  chan struct{}
	stop  chan struct{}

	mu    sync.Mutex
	ready []*connSub // subscriptions with queued events, in order; the writer is woken for the first
	spare []*connSub // the last round's slice, reused
}

// acquireConnWriter returns the writer of the connection key, started
// if the connection had none; release gives it back.
func acquireConnWriter(key string) *connWriter {
	connWriters.Lock()
	defer connWriters.Unlock()
	w := connWriters.m[key]
	if w == nil {
		w = &connWriter{key: key, wake: make(chan struct{}, 1), stop: make(chan struct{})}
		connWriters.m[key] = w
		go w.run()
	}
	w.users++
	return w
}

// release stops the writer once its last session ended.
func (w *connWriter) release() {
	connWriters.Lock()
	defer connWriters.Unlock()
	if w.users--; w.users == 0 {
		delete(connWriters.m, w.key)
		close(w.stop)
	}
}

// add queues cs for the next round; true means the caller must signal
// the writer (once, after it queued all it had: see writerWakes).
func (w *connWriter) add(cs *connSub) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ready = append(w.ready, cs)
	return len(w.ready) == 1
}

func (w *connWriter) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// run writes rounds until the writer stops.
func (w *connWriter) run() {
	for {
		select {
		case <-w.stop:
			return
		case <-w.wake:
		}
		w.mu.Lock()
		round := w.ready
		w.ready = w.spare
		w.mu.Unlock()
		written := 0
		for i, cs := range round {
			cs.pending.Store(false) // an event queued from now on comes in a later round
			written += cs.drain()
			round[i] = nil
		}
		w.spare = round[:0]
		if written > 0 {
			metrics.roundWrites.Observe(float64(written))
		}
	}
}

// writerWakes collects the writers one publish gave work, to signal each
// once all its subscriptions are queued: a round then holds them all.
type writerWakes []*connWriter

func (ws writerWakes) signal() {
	for _, w := range ws {
		w.signal()
	}
}

// connSub is a WebTransport subscription as its connection's writer sees
// it. Whoever writes its stream holds writing: the writer while the
// subscription is fast, else the subscription's own goroutine.
type connSub struct {
	sub *subscriber
	d   *streamDeliverer
	w   *connWriter

	fast    atomic.Bool // the writer writes the queue
	pending atomic.Bool // in the writer's next round
	writing sync.Mutex
	slow    chan struct{} // the writer handed a write over
	handed  handoff       // under writing
}

// handoff is the write the connection's writer gave up on.
type handoff struct {
	e    *event
	rest []byte // of e's line, not written
	err  error
}

func newConnSub(sub *subscriber, d *streamDeliverer, w *connWriter) *connSub {
	cs := &connSub{sub: sub, d: d, w: w, slow: make(chan struct{}, 1)}
	sub.batched = cs
	return cs
}

// queued tells the writer of an event queued for cs; wakes collects the
// writer to signal, or nil signals it now.
func (cs *connSub) queued(wakes *writerWakes) {
	if !cs.fast.Load() || !cs.pending.CompareAndSwap(false, true) {
		return
	}
	if cs.w.add(cs) {
		if wakes != nil {
			*wakes = append(*wakes, cs.w)
		} else {
			cs.w.signal()
		}
	}
}

// drain writes cs's queue on the writer's goroutine; a write the client
// does not take within the budget is handed to cs's own goroutine. It
// returns the events written.
func (cs *connSub) drain() int {
	if !cs.fast.Load() || !cs.writing.TryLock() {
		return 0 // its own goroutine writes it
	}
	cs.d.setWriteDeadline(time.Now().Add(connWriteBudget))
	for n := 0; ; n++ {
		var e *event
		select {
		case e = <-cs.sub.queue:
		default:
			cs.writing.Unlock()
			return n
		}
		transport, rest, err := cs.d.tryEvent(e)
		if err != nil {
			cs.handed = handoff{e: e, rest: rest, err: err}
			cs.fast.Store(false)
			cs.writing.Unlock()
			select {
			case cs.slow <- struct{}{}:
			default:
			}
			return n
		}
		recordDelivery(e, transport)
	}
}

// serve is the subscription's own goroutine while the writer writes its
// queue: it takes over handed writes until ctx ends or the channel ends
// the subscription, and returns with the stream to itself.
func (cs *connSub) serve(done <-chan struct{}, ended <-chan struct{}) {
	defer cs.writing.Lock() // wait for a round in progress: the stream is the caller's to close
	defer cs.fast.Store(false)
	cs.fast.Store(true)
	if len(cs.sub.queue) > 0 { // the replay
		cs.queued(nil)
	}
	for {
		select {
		case <-done:
			return
		case <-ended:
			return
		case <-cs.slow:
			if !cs.catchUp() {
				return
			}
		}
	}
}

// catchUp finishes the handed write and the queue behind it, waiting for
// the client, then gives the subscription back to the writer; false
// means the stream failed.
func (cs *connSub) catchUp() bool {
	cs.writing.Lock()
	if !cs.finish() {
		cs.writing.Unlock()
		return false
	}
	cs.fast.Store(true)
	cs.writing.Unlock()
	// An event queued while cs was slow, or while it held writing, did
	// not reach the writer.
	if len(cs.sub.queue) > 0 {
		cs.queued(nil)
	}
	return true
}

// finish writes the handed write and the queue, under writing.
func (cs *connSub) finish() bool {
	h := cs.handed
	cs.handed = handoff{}
	if h.e != nil && (!errors.Is(h.err, os.ErrDeadlineExceeded) || cs.d.interrupted.Load()) {
		return false
	}
	cs.d.setWriteDeadline(time.Time{})
	if h.e != nil {
		if _, err := cs.d.str.Write(h.rest); err != nil {
			return false
		}
		recordDelivery(h.e, "stream")
	}
	for {
		select {
		case e := <-cs.sub.queue:
			transport, err := cs.d.event(e)
			if err != nil {
				return false
			}
			recordDelivery(e, transport)
		default:
			return true
		}
	}
}
