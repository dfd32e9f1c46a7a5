package clienttcp

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"

	"github.com/lastmile-edge/lastmile/internal/requestmetric"
)

// protocol is what a connection turned out to carry.
type protocol uint8

const (
	protoUnknown protocol = iota // nothing read yet
	protoHTTP1
	protoHTTP2
	// protoOpaque: TLS records, because the tls wrapper comes after
	// client_tcp; the HTTP inside cannot be followed.
	protoOpaque
)

// maxReplay bounds the bytes of an unanswered HTTP/1.1 request kept to be
// replayed to another server (see movableLocked): request heads and small
// bodies; a connection with more in flight is closed as before.
const maxReplay = 64 << 10

// conn is a client connection as the HTTP server sees it. It follows the
// connection's protocol (from its first bytes) and HTTP/1.1 state (from
// the server's ConnState hook) so that, when the config that accepted it
// is replaced, an HTTP/1.1 connection moves to the new config's server
// instead of being closed under a request, and an HTTP/2 connection is
// told to go away before its server refuses streams (see drain.go).
type conn struct {
	net.Conn // the connection under client_tcp: *tls.Conn, or TCP
	ln       *listener

	// isHTTP2 is proto == protoHTTP2, read without c.mu: that protocol
	// is final and such a connection is never detached (movableLocked),
	// so its reads and writes skip the HTTP/1.1 bookkeeping and its lock.
	isHTTP2 atomic.Bool

	mu      sync.Mutex
	proto   protocol
	matched int            // bytes of the HTTP/2 preface matched so far
	state   http.ConnState // as the owner's ConnState hook last reported
	owner   any            // the server that reported StateNew
	// reported is closed by the owner's next state report (see
	// awaitReportLocked), nil when no one waits for it.
	reported chan struct{}
	// The owner's read deadline, and the read and write deadlines the
	// socket has (deadline.go).
	readDeadline, socketRead, socketWrite time.Time
	// HTTP/1.1 bytes the owner read since it last wrote, and whether its
	// last Read call brought some: a request the owner read and closed
	// on, without answering or reading on, was dropped before any
	// handler saw it.
	unanswered []byte
	overflow   bool   // unanswered outgrew maxReplay
	readData   bool   // the last Read call added to unanswered
	unread     []byte // bytes a replaced server read and did not answer
	reading    bool   // the owner is blocked in Read
	// interrupted is closed when a Read that detach cut short returns.
	interrupted chan struct{}
	// detached: the connection moved to another server; this handle
	// reads EOF and closes nothing.
	detached bool
	in       frameScanner // client to server, HTTP/2 only
	ping     [8]byte      // the drain's PING, whose ACK is awaited
	acked    chan struct{}

	// The requests, counted as the owner reads them: HTTP/1.1 heads, and
	// HTTP/2 streams opened (the highest stream id so far).
	requests   requestScanner
	lastStream uint32

	// HTTP/1.1 hits answered here, below the owner (h1hits.go): request
	// heads read in all, how many of them were answered here, and the
	// owner's idle reports (one after each response of its own).
	heads, answered, idles int
	answer                 *answering // nil until the first request at rest
	noAnswer               bool       // the owner has no front for them
	writingAnswer          bool       // a response is being written here
	closeWanted            bool       // a Close came: answer no more
	tlsState               *tls.ConnectionState

	wmu        sync.Mutex
	out        frameScanner // server to client, HTTP/2 only
	h2w        *coalescer   // HTTP/2 only: where the server's writes go (h2writer.go)
	inject     []byte       // frames to write at the next frame boundary
	sentGoAway bool         // the server sent its own GOAWAY
}

// tlsConn is a conn over *tls.Conn: Caddy reads the TLS state of
// requests through ConnectionState.
type tlsConn struct{ *conn }

func (c tlsConn) ConnectionState() tls.ConnectionState {
	return c.conn.Conn.(*tls.Conn).ConnectionState()
}

// netConn is c as the HTTP server gets it.
func (c *conn) netConn() net.Conn {
	if _, ok := c.Conn.(*tls.Conn); ok {
		return tlsConn{c}
	}
	return c
}

// NetConn returns the connection under client_tcp.
func (c *conn) NetConn() net.Conn { return c.Conn }

func (c *conn) Read(p []byte) (int, error) {
	if c.isHTTP2.Load() {
		return c.readHTTP2(p)
	}
	c.mu.Lock()
	if c.detached {
		c.mu.Unlock()
		return 0, io.EOF
	}
	if c.proto == protoOpaque {
		c.mu.Unlock()
		return c.Conn.Read(p)
	}
	c.readData = false
	if len(c.unread) > 0 {
		n := copy(p, c.unread)
		c.unread = c.unread[n:]
		c.delivered(p[:n], false)
		c.mu.Unlock()
		return n, nil
	}
	answer := c.answererLocked()
	defer c.mu.Unlock()
	n, err, cut := c.readSocketLocked(p)
	if cut {
		return 0, err
	}
	if n > 0 && err == nil && answer != nil {
		n, err = c.answerHits(answer, p, n)
	}
	if n > 0 {
		c.delivered(p[:n], true)
	}
	return n, err
}

// readSocketLocked reads from the socket for the owner, with c.mu released
// meanwhile; cut reports that detach cut the read short (what it brought
// goes to the server the connection moves to). c.mu is held.
func (c *conn) readSocketLocked(p []byte) (n int, err error, cut bool) {
	if err := c.startReadLocked(); err != nil {
		return 0, err, false
	}
	c.reading = true
	c.mu.Unlock()
	n, err = c.Conn.Read(p)
	c.mu.Lock()
	c.reading = false
	if c.interrupted != nil {
		c.unanswered = append(c.unanswered, p[:n]...)
		c.scanHTTP1(p[:n])
		close(c.interrupted)
		c.interrupted = nil
		return 0, io.EOF, true
	}
	return n, err, false
}

// readHTTP2 reads for an HTTP/2 connection's server, which only needs its
// frames followed.
func (c *conn) readHTTP2(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		c.observe(p[:n])
		c.mu.Unlock()
	}
	return n, err
}

// delivered follows what the owner read, fresh from the client or
// replayed from a replaced server's handle, which observed it; c.mu is
// held.
func (c *conn) delivered(p []byte, fresh bool) {
	if fresh {
		c.observe(p)
	}
	if c.proto != protoHTTP1 || c.overflow {
		return
	}
	if len(c.unanswered)+len(p) > maxReplay {
		c.unanswered, c.overflow = nil, true
		return
	}
	c.unanswered = append(c.unanswered, p...)
	c.readData = true
}

// observe follows the protocol and counts the requests; c.mu is held.
func (c *conn) observe(p []byte) {
	if c.proto == protoUnknown {
		if _, isTLS := c.Conn.(*tls.Conn); !isTLS && p[0] == 0x16 {
			// A TLS handshake record: client_tcp is listed before tls.
			c.proto = protoOpaque
			c.ln.forget(c)
			c.ln.lw.warnOpaque.Do(func() {
				c.ln.lw.logger.Warn("client_tcp is listed before tls: it tunes the sockets, but reloads close idle connections " +
					"and lastmile_http_requests_total counts no HTTP/1.1 or HTTP/2 requests; list it after tls")
			})
			return
		}
		k := min(len(p), len(h2Preface)-c.matched)
		if string(p[:k]) != h2Preface[c.matched:c.matched+k] {
			c.proto = protoHTTP1
			// What matched so far (the P of a POST) began the request.
			c.scanHTTP1([]byte(h2Preface[:c.matched]))
			c.scanHTTP1(p)
			return
		}
		c.matched += k
		if c.matched < len(h2Preface) {
			return
		}
		c.proto = protoHTTP2
		c.h2w = newCoalescer(c.Conn)
		c.isHTTP2.Store(true)
		p = p[k:]
	}
	switch c.proto {
	case protoHTTP1:
		c.scanHTTP1(p)
		return
	case protoHTTP2:
	default:
		return
	}
	for len(p) > 0 {
		n, ended := c.in.step(p)
		p = p[n:]
		if !ended {
			continue
		}
		if id := c.in.streamID(); c.in.frameType() == http2.FrameHeaders && id%2 == 1 && id > c.lastStream {
			// HEADERS opening a stream (a later one on the stream is
			// its trailers): a request.
			c.lastStream = id
			requestmetric.HTTP2.Inc()
		}
		if c.acked != nil && c.in.isPingAck(c.ping) {
			// The server's frame reader has now handed it every frame
			// before this one, each processed in turn: the streams the
			// client opened before it saw the GOAWAY are all known.
			close(c.acked)
			c.acked = nil
		}
	}
}

// scanHTTP1 counts the HTTP/1.1 requests in p, the next bytes the owner
// read; c.mu is held.
func (c *conn) scanHTTP1(p []byte) {
	if n := c.requests.feed(p); n > 0 {
		c.heads += n
		requestmetric.HTTP1.Add(float64(n))
	}
}

func (c *conn) Write(p []byte) (int, error) {
	if c.isHTTP2.Load() {
		return c.writeHTTP2(p)
	}
	c.mu.Lock()
	detached, h2 := c.detached, c.proto == protoHTTP2
	if !h2 {
		c.unanswered, c.overflow = c.unanswered[:0], false
	}
	if c.proto == protoHTTP1 && !detached {
		// A request that asked to switch protocols waits for this.
		if n := c.requests.responded(p); n > 0 {
			requestmetric.HTTP1.Add(float64(n))
		}
	}
	c.mu.Unlock()
	if detached {
		return 0, net.ErrClosed
	}
	if !h2 {
		return c.Conn.Write(p)
	}
	return c.writeHTTP2(p)
}

// writeHTTP2 writes the server's frames, adding those goAway injects at a
// frame boundary.
func (c *conn) writeHTTP2(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	start := 0
	for i := 0; i < len(p); {
		if c.inject != nil && c.out.atBoundary() {
			if _, err := c.h2w.Write(p[start:i]); err != nil {
				return start, err
			}
			start = i
			if err := c.writeInjected(); err != nil {
				return start, err
			}
		}
		n, ended := c.out.step(p[i:])
		i += n
		if ended && c.out.frameType() == http2.FrameGoAway {
			c.sentGoAway = true
		}
	}
	n, err := c.h2w.Write(p[start:])
	return start + n, err
}

// writeInjected writes the pending frames; c.wmu is held.
func (c *conn) writeInjected() error {
	frames := c.inject
	c.inject = nil
	_, err := c.h2w.Write(frames)
	return err
}

// expectAck prepares the graceful shutdown of an HTTP/2 connection (see
// goAwayFrames): the returned channel is closed once the server has read
// the client's acknowledgement of ping, or when the connection closes.
// It is nil for connections that are not HTTP/2.
func (c *conn) expectAck(ping [8]byte) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.proto != protoHTTP2 || c.acked != nil {
		return nil
	}
	c.ping, c.acked = ping, make(chan struct{})
	return c.acked
}

// goAway sends the frames expectAck prepared, at the next frame boundary
// of what the server writes.
func (c *conn) goAway(ping [8]byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.sentGoAway {
		// The server is shutting the connection down already, and a
		// second GOAWAY may not raise the last stream id.
		c.ackDone()
		return
	}
	c.inject = goAwayFrames(ping)
	if c.out.atBoundary() {
		if err := c.writeInjected(); err != nil {
			c.ackDone()
		}
	}
}

// ackDone ends the wait for the client's acknowledgement.
func (c *conn) ackDone() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.acked != nil {
		close(c.acked)
		c.acked = nil
	}
}

// setState records the HTTP/1.1 state the server reports. After a hand
// over the new server's reports count: the old one's StateClosed is about
// the handle it dropped.
func (c *conn) setState(srv any, st http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st == http.StateNew && c.owner == nil {
		c.owner = srv
	}
	if c.owner == srv {
		c.state = st
		if st == http.StateIdle {
			c.idles++
		}
		if c.reported != nil {
			close(c.reported)
			c.reported = nil
		}
	}
}

// stateReportLag bounds how long Close waits for a state report that may
// be on its way (see awaitReportLocked): the report follows the state
// change in the same goroutine, microseconds later, but a loaded machine
// may deschedule that goroutine for a few time slices.
const stateReportLag = 100 * time.Millisecond

// awaitReportLocked waits, when Close may have overtaken the owner's
// report that the connection went idle, until that report comes or
// stateReportLag passes. net/http marks a connection idle after its
// response, then runs the ConnState hooks; Shutdown, which closes idle
// connections, can close it in between, when the state here still says
// active with the request answered, and the client, which may be sending
// its next request, would meet a closed socket. A close that the owner
// itself makes after answering (Connection: close) has no report coming
// and waits the whole bound, once, in a reload. c.mu is held (released
// while waiting).
func (c *conn) awaitReportLocked() {
	if c.proto != protoHTTP1 || c.overflow || c.state != http.StateActive || len(c.unanswered) > 0 || c.reading {
		return
	}
	if c.reported == nil {
		c.reported = make(chan struct{})
	}
	c.waitLocked(c.reported, stateReportLag)
}

// waitLocked waits, with c.mu released, until ch is closed or d passes.
// c.mu is held.
func (c *conn) waitLocked(ch <-chan struct{}, d time.Duration) {
	c.mu.Unlock()
	timer := time.NewTimer(d)
	select {
	case <-ch:
	case <-timer.C:
	}
	timer.Stop()
	c.mu.Lock()
}

// Close closes the connection, unless its config is being replaced and
// the connection can move to the new config's server (movableLocked).
func (c *conn) Close() error {
	c.mu.Lock()
	if c.detached {
		c.mu.Unlock()
		return nil
	}
	if c.closeAfterAnswerLocked() {
		c.mu.Unlock()
		return nil
	}
	next := c.ln.successor()
	if next != nil {
		c.awaitReportLocked()
		if c.detached {
			// A second Close, by the owner, came while waiting.
			c.mu.Unlock()
			return nil
		}
	}
	if next != nil && c.movableLocked() {
		if c.ln.handOver(c, next, c.detach()) {
			return nil
		}
		c.Conn.Close()
		return nil
	}
	h2w := c.h2w
	c.mu.Unlock()
	c.ln.forget(c)
	c.ackDone()
	if h2w != nil {
		h2w.close()
	}
	return c.Conn.Close()
}

// movableLocked reports whether c is an HTTP/1.1 connection whose server
// is done with it and whose client is not: either between two requests
// (the client may be sending the next one now, or have sent part of it,
// and would meet a closed socket), or holding a request the server read but closed on without
// answering it or reading on, which net/http does to requests it reads
// while shutting down: no handler saw it, so another server may answer
// it. c.mu is held.
func (c *conn) movableLocked() bool {
	if c.proto != protoHTTP1 || c.overflow {
		return false
	}
	if c.state == http.StateIdle {
		// Between requests, whatever the server read since its last
		// write is the next request, which no handler has seen: its
		// first bytes (net/http's background read takes one while it
		// flushes a response, before a server shutting down closes),
		// or a head it was still reading.
		return true
	}
	if len(c.unanswered) == 0 {
		return false
	}
	// Active, not hijacked: bytes on a hijacked connection are not HTTP.
	return c.state == http.StateActive && !c.reading && c.readData
}

// detach takes c away from its server, cutting short a Read it is blocked
// in, and returns the bytes the next server is to read first (c.mu is
// held, and released).
func (c *conn) detach() []byte {
	c.detached = true
	if c.reading {
		done := make(chan struct{})
		c.interrupted = done
		c.mu.Unlock()
		_ = c.Conn.SetReadDeadline(time.Unix(1, 0))
		<-done
		c.mu.Lock()
	}
	replay := append(c.unanswered, c.unread...)
	c.unanswered, c.unread = nil, nil
	staleWrite := !c.socketWrite.IsZero()
	c.mu.Unlock()
	// The next owner's handle starts with a socket without deadlines.
	_ = c.Conn.SetReadDeadline(time.Time{})
	if staleWrite {
		_ = c.Conn.SetWriteDeadline(time.Time{})
	}
	return replay
}
