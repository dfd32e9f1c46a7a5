package clienttcp

import (
	"net"
	"sync"
)

// h2Writer does an HTTP/2 connection's writes on a goroutine that lives as
// long as the connection. x/net/http2 writes each flush of its buffer from
// a goroutine started for that flush (writeFrameAsync); that goroutine's
// small stack grows at once in crypto/tls's Write (handshakeContext's
// frame), and the copy was 10% of the edge's CPU on HTTP/2 hits
// (docs/results/hit-profile.md). This goroutine's stack stays grown, at
// the cost of two hand-offs per flush.
type h2Writer struct {
	req  chan []byte
	res  chan writeResult
	done chan struct{} // closed by stop: the goroutine ends
	once sync.Once
}

type writeResult struct {
	n   int
	err error
}

// startH2Writer starts c's writer; c.mu is held.
func (c *conn) startH2Writer() {
	w := &h2Writer{req: make(chan []byte), res: make(chan writeResult, 1), done: make(chan struct{})}
	c.h2w = w
	go func() {
		for {
			select {
			case p := <-w.req:
				n, err := c.writeFrames(p)
				w.res <- writeResult{n, err}
			case <-w.done:
				return
			}
		}
	}()
}

// write writes p on the writer's goroutine and waits for it; c.wmu is held.
func (w *h2Writer) write(p []byte) (int, error) {
	select {
	case w.req <- p:
	case <-w.done:
		return 0, net.ErrClosed
	}
	r := <-w.res
	return r.n, r.err
}

// stop ends the writer's goroutine once a write it took is done.
func (w *h2Writer) stop() { w.once.Do(func() { close(w.done) }) }
