package clienttcp

import (
	"net"
	"runtime"
	"sync"
	"time"
)

// HTTP/2's server (golang.org/x/net/http2) flushes its 4 KiB write buffer
// whenever its queue of frames runs empty. Its handlers hand it their
// frames one at a time, waiting for each, so the queue empties after
// every HEADERS and every DATA: two flushes a response, each a TLS record
// and a write system call, on a goroutine started for the flush (whose
// stack grows in crypto/tls). nginx sends the responses to the requests
// it read together in one write.
//
// So an HTTP/2 connection's writes land in a buffer (Write returns at
// once), and a writer goroutine of the connection sends what has
// accumulated once the goroutines that were ready to run when it woke have
// run: the responses to the requests the server read in one go leave
// together, a write per TLS record. The delay is bounded: the writer
// yields once per write, Write blocks while maxPending bytes wait (the
// server's flow control, which counts bytes as sent once written here,
// keeps its meaning), and Close waits at most closeFlushTimeout for what
// is pending. A write deadline set on the connection applies when the
// writer writes, not when Write returns (x/net/http2 clears the
// connection's deadlines and times streams out on its own).

// maxPending is the most bytes pending before a Write waits: one full TLS
// record (crypto/tls makes a system call per record, so a larger batch
// would save none), and no more committed ahead of the HTTP/2 server's
// frame scheduler than TCP_NOTSENT_LOWAT's default leaves in the socket.
// A Write that finds room appends all it has, so pending can exceed it by
// one write (crypto/tls writes at most a record at a time here).
const maxPending = 16 << 10

// maxPooled is the largest buffer kept for reuse: one that a larger write
// grew goes to the garbage collector, not back to the pool.
const maxPooled = 2 * maxPending

// closeFlushTimeout bounds how long Close waits for the pending bytes to
// be written (x/net/http2 waits as long for a client to read its GOAWAY).
const closeFlushTimeout = time.Second

// pendingBuffers recycles the writers' buffers: a connection holds them
// only while it has bytes to write.
var pendingBuffers = sync.Pool{New: func() any { b := make([]byte, 0, maxPending); return &b }}

// coalescer is the write side of an HTTP/2 connection.
type coalescer struct {
	conn net.Conn

	mu      sync.Mutex
	room    sync.Cond // broadcast when the writer takes pending, or fails
	pending *[]byte   // nil when nothing is pending
	err     error     // the write that failed: every later Write returns it
	closing bool

	wake chan struct{} // one token: pending has bytes, or closing
	done chan struct{} // closed when the writer returns
}

func newCoalescer(conn net.Conn) *coalescer {
	w := &coalescer{conn: conn, wake: make(chan struct{}, 1), done: make(chan struct{})}
	w.room.L = &w.mu
	go w.run()
	return w
}

// Write queues p to be written, waiting while maxPending bytes are.
func (w *coalescer) Write(p []byte) (int, error) {
	w.mu.Lock()
	for w.err == nil && !w.closing && w.pending != nil && len(*w.pending) >= maxPending {
		w.room.Wait()
	}
	switch {
	case w.err != nil:
		err := w.err
		w.mu.Unlock()
		return 0, err
	case w.closing:
		w.mu.Unlock()
		return 0, net.ErrClosed
	}
	first := w.pending == nil
	if first {
		w.pending = pendingBuffers.Get().(*[]byte)
	}
	*w.pending = append(*w.pending, p...)
	w.mu.Unlock()
	if first {
		w.signal()
	}
	return len(p), nil
}

func (w *coalescer) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// run writes what is pending until the connection closes or a write fails.
func (w *coalescer) run() {
	defer close(w.done)
	for range w.wake {
		// Let the goroutines that are ready to run (the server's, the
		// handlers of the requests it read) add their frames first.
		runtime.Gosched()
		w.mu.Lock()
		buf, closing := w.pending, w.closing
		w.pending = nil
		w.room.Broadcast()
		w.mu.Unlock()
		if buf != nil {
			_, err := w.conn.Write(*buf)
			if cap(*buf) <= maxPooled {
				*buf = (*buf)[:0]
				pendingBuffers.Put(buf)
			}
			if err != nil {
				w.fail(err)
				return
			}
		}
		if closing {
			return // Write takes nothing once closing is set
		}
	}
}

// fail records the write error and closes the connection, so that the
// server's read ends too instead of waiting for a client it cannot answer.
func (w *coalescer) fail(err error) {
	w.mu.Lock()
	w.err = err
	w.room.Broadcast()
	w.mu.Unlock()
	_ = w.conn.Close()
}

// close lets the writer write what is pending, for closeFlushTimeout at
// most, and waits for it to return. The connection stays open unless that
// time runs out.
func (w *coalescer) close() {
	w.mu.Lock()
	w.closing = true
	w.room.Broadcast()
	w.mu.Unlock()
	w.signal()
	t := time.NewTimer(closeFlushTimeout)
	defer t.Stop()
	select {
	case <-w.done:
	case <-t.C:
		_ = w.conn.Close() // ends the write the client does not read
		<-w.done
	}
}
