package clienttcp

import (
	"crypto/rand"
	"net"
	"slices"
	"sync"
	"time"
)

// A reload starts the new config's servers on the same (shared) sockets,
// then shuts the old ones down, and net/http's Server.Shutdown closes
// every idle keep-alive connection at once. A client may be sending a
// request on it at that moment: the request meets a closed socket and
// the client sees a reset (wrk counted 158 in 565,000 requests over ten
// reloads). For HTTP/2, Shutdown sends one GOAWAY naming the last stream
// the server has read and drops the streams that were in flight.
//
// client_tcp sees every connection and its listener's Close is the first
// thing Shutdown does, so on Close:
//   - HTTP/2 connections get RFC 9113 section 6.8's graceful shutdown:
//     GOAWAY with the largest stream id and a PING; Close returns when
//     the server has read each client's PING ACK (or after
//     goAwayAckTimeout), so the server's own GOAWAY names every stream
//     the client sent before it stopped.
//   - an idle HTTP/1.1 connection that Shutdown then closes is handed to
//     the new config's listener instead, whose server serves its next
//     request: the connection outlives the reload, as QUIC's do.

// goAwayAckTimeout bounds how long a replaced listener's Close waits for
// HTTP/2 clients to acknowledge the first GOAWAY: many round trips of a
// mobile path, short enough that a client that never answers does not
// hold the shutdown.
const goAwayAckTimeout = time.Second

// listeners holds, per address, the open client_tcp listeners, oldest
// first: in a reload the new config's listener opens before the old one
// closes, and is the old one's successor.
var listeners = struct {
	sync.Mutex
	byAddr map[string][]*listener
}{byAddr: make(map[string][]*listener)}

// listener tunes and tracks the connections of one config's listener.
type listener struct {
	net.Listener
	lw   *ListenerWrapper
	addr string

	accepted chan acceptResult
	handed   chan net.Conn // connections handed over from replaced listeners
	done     chan struct{} // closed by Close

	mu    sync.Mutex
	conns map[*conn]struct{}
	next  *listener // once closed: the listener that took over the address
}

type acceptResult struct {
	c   net.Conn
	err error
}

func newListener(ln net.Listener, lw *ListenerWrapper) *listener {
	l := &listener{
		Listener: ln,
		lw:       lw,
		addr:     ln.Addr().Network() + "/" + ln.Addr().String(),
		accepted: make(chan acceptResult),
		handed:   make(chan net.Conn),
		done:     make(chan struct{}),
		conns:    make(map[*conn]struct{}),
	}
	listeners.Lock()
	listeners.byAddr[l.addr] = append(listeners.byAddr[l.addr], l)
	listeners.Unlock()
	go l.acceptLoop()
	return l
}

// acceptLoop accepts from the socket, so that Accept can also return
// connections handed over from a replaced listener.
func (l *listener) acceptLoop() {
	for {
		c, err := l.Listener.Accept()
		if err == nil {
			l.lw.tune(c)
		}
		select {
		case l.accepted <- acceptResult{c, err}:
		case <-l.done:
			// The socket is shared with the config that replaces this
			// one: a connection it gave to this loop as the server
			// stopped accepting is that config's.
			if c != nil && !l.handOver(l.adopt(c, protoUnknown, nil), l.successor(), nil) {
				c.Close()
			}
			return
		}
		if ne, ok := err.(net.Error); err != nil && !(ok && ne.Timeout()) {
			return // closed: Accept returns the error and is not called again
		}
	}
}

func (l *listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.handed:
		return c, nil
	case a := <-l.accepted:
		if a.err != nil {
			return nil, a.err
		}
		return l.adopt(a.c, protoUnknown, nil).netConn(), nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// adopt tracks nc as a connection of l, whose server reads unread first.
func (l *listener) adopt(nc net.Conn, proto protocol, unread []byte) *conn {
	c := &conn{Conn: nc, ln: l, proto: proto, unread: unread}
	l.mu.Lock()
	l.conns[c] = struct{}{}
	l.mu.Unlock()
	trackState(c)
	return c
}

// forget stops tracking c.
func (l *listener) forget(c *conn) {
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
	untrackState(c)
}

// Close closes the listener and, if another config took over its address,
// prepares its connections to move (see the top of this file).
func (l *listener) Close() error {
	err := l.Listener.Close()
	if l.closed() {
		return err
	}
	close(l.done)
	listeners.Lock()
	rest := listeners.byAddr[l.addr]
	for i, o := range rest {
		if o == l {
			rest = append(rest[:i:i], rest[i+1:]...)
			break
		}
	}
	var next *listener
	if len(rest) > 0 {
		listeners.byAddr[l.addr] = rest
		next = rest[len(rest)-1]
	} else {
		delete(listeners.byAddr, l.addr)
	}
	listeners.Unlock()

	l.mu.Lock()
	l.next = next
	conns := make([]*conn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	l.goAwayHTTP2(conns)
	return err
}

// goAwayHTTP2 starts the graceful shutdown of every HTTP/2 connection and
// waits until their servers have read the clients' acknowledgements.
func (l *listener) goAwayHTTP2(conns []*conn) {
	var ping [8]byte
	_, _ = rand.Read(ping[:])
	var acks []<-chan struct{}
	for _, c := range conns {
		if acked := c.expectAck(ping); acked != nil {
			acks = append(acks, acked)
			// Writing may block on a client that does not read; the
			// wait below is bounded either way.
			go c.goAway(ping)
			metrics.reloaded.WithLabelValues("goaway").Inc()
		}
	}
	timeout := time.NewTimer(goAwayAckTimeout)
	defer timeout.Stop()
	for _, acked := range acks {
		select {
		case <-acked:
		case <-timeout.C:
			return
		}
	}
}

// closed reports whether l was closed: its server is shutting down.
func (l *listener) closed() bool {
	select {
	case <-l.done:
		return true
	default:
		return false
	}
}

// successor is the listener that takes over l's address: once a newer
// config's listener for it is open, l's config is being replaced. (Its
// server starts closing connections before it closes l: Shutdown marks
// the server as shutting down first, and a connection that just finished
// a response then closes rather than wait for the next request.) Nil
// while l is the newest or no listener took over.
func (l *listener) successor() *listener {
	listeners.Lock()
	open := listeners.byAddr[l.addr]
	i := slices.Index(open, l)
	listeners.Unlock()
	switch {
	case i >= 0 && i < len(open)-1:
		return open[len(open)-1]
	case i >= 0:
		return nil
	}
	l.mu.Lock()
	next := l.next
	l.mu.Unlock()
	for next != nil {
		select {
		case <-next.done:
			next.mu.Lock()
			n := next.next
			next.mu.Unlock()
			next = n
		default:
			return next
		}
	}
	return nil
}

// handOver gives the connection under c, detached from its server (or
// never given to one), to the server of to or of its successor, which
// reads replay first; false if none took it.
func (l *listener) handOver(c *conn, to *listener, replay []byte) bool {
	l.forget(c)
	c.mu.Lock()
	// The request heads read and not served, which the replay holds:
	// nc's server serves them, with an idle report each.
	pending := c.heads - c.answered - c.idles
	c.mu.Unlock()
	for to != nil {
		nc := to.adopt(c.Conn, c.proto, replay)
		// The replay is counted: nc's count goes on from c's.
		nc.requests, nc.heads = c.requests, pending
		select {
		case to.handed <- nc.netConn():
			metrics.reloaded.WithLabelValues("handed_over").Inc()
			return true
		case <-to.done:
			to.forget(nc)
			to = to.successor()
		}
	}
	return false
}
