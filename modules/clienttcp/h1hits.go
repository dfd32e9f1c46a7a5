package clienttcp

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/lastmile-edge/lastmile/internal/frontdoor"
)

// HTTP/1.1 hits below net/http. net/http's per-request work (reading the
// head into a new Request and Header, the response's buffers and sorted
// header, its deadlines, the background read, the ConnState hooks) costs
// more than a cache hit itself. When, and only when, the server is at rest
// on the connection, waiting for a new request with none in flight and
// nothing of the client's buffered (see restingLocked), the bytes its Read
// brings are looked at here first: a complete, plainly simple request at
// their start (h1parse.go) is offered to the server's fast hit path
// (frontdoor.HTTP1Answerer, the same site, decide and serveEntry as for the
// request through net/http), and a hit is written to the socket as net/http
// would write it (h1response.go) and its bytes consumed; the next request
// is looked at the same way. The first request that is not simple, not
// complete or not a hit, and all after it, go to net/http untouched, in
// order. Nothing answered here was seen by net/http, so no response can
// overtake another.

// maxJoinedBody is the largest body copied behind its head into one write;
// a larger one is written on its own.
const maxJoinedBody = 16 << 10

// hitState is what answering a request needs, pooled: a connection holds
// none of it between requests.
type hitState struct {
	q     simpleRequest
	w     responseWriter
	local localAddr
}

// localAddr is the connection's local address as net/http puts it in the
// request's context (alt_svc reads its port), swapped per connection.
type localAddr struct{ net.Addr }

// AddrPort is the address's, if it has one: alt_svc reads the port so,
// without formatting the address on every hit.
func (a *localAddr) AddrPort() netip.AddrPort {
	if ap, ok := a.Addr.(interface{ AddrPort() netip.AddrPort }); ok {
		return ap.AddrPort()
	}
	return netip.AddrPort{}
}

var hitStates = sync.Pool{New: func() any {
	st := &hitState{}
	st.q.hdr = make(http.Header, 16)
	st.w.hdr = make(http.Header, 16)
	ctx := context.WithValue(context.Background(), http.LocalAddrContextKey, net.Addr(&st.local))
	st.q.req = (&http.Request{}).WithContext(ctx)
	return st
}}

// answering is what a connection needs to answer hits: its server's
// front and timeouts, found once.
type answering struct {
	front      frontdoor.HTTP1Answerer
	idle       time.Duration // net/http's wait for the next request
	write      time.Duration // net/http's write timeout, from the request
	writeIdle  time.Duration // Caddy's bound on a body's write, as the fast path sets it
	remoteAddr string
}

// answererLocked is how the connection answers hits, or nil when the
// bytes the owner's Read brings are not to be looked at. c.mu is held.
func (c *conn) answererLocked() *answering {
	if !c.restingLocked() {
		return nil
	}
	if c.answer == nil {
		srv, ok := c.owner.(*caddyhttp.Server)
		if !ok {
			return nil
		}
		front := frontdoor.HTTP1Front(srv)
		if front == nil {
			c.noAnswer = true
			return nil
		}
		idle := time.Duration(srv.IdleTimeout)
		if idle == 0 {
			idle = time.Duration(srv.ReadTimeout) // as net/http's Server.idleTimeout
		}
		c.answer = &answering{front: front, idle: idle, write: time.Duration(srv.WriteTimeout),
			writeIdle: time.Duration(srv.WriteIdleTimeout), remoteAddr: c.Conn.RemoteAddr().String()}
	}
	return c.answer
}

// restingLocked reports whether the owner is waiting for a new request
// with nothing of the client's in its buffer: it reported the connection
// idle, every request head it was given has been answered (an idle report
// each: net/http reports idle after the response is flushed, then reads;
// its background read during a handler comes before that report, and a
// request it reads from its buffer leaves the state idle), what it was
// given ends with a request, and the connection is HTTP/1.1, offered
// answers, not moved here by a reload, nor closing. The first request of a
// connection is net/http's, so that its state is idle, not new, whenever
// requests are answered here: its Shutdown then closes the connection at
// once, between requests, and the drain moves it (drain.go). c.mu is held.
func (c *conn) restingLocked() bool {
	if c.noAnswer || !c.ln.lw.answerHits() || c.detached || c.closeWanted || len(c.unread) > 0 {
		return false
	}
	if c.proto != protoHTTP1 || c.state != http.StateIdle {
		return false
	}
	// Shutting down: net/http answers, and closes after.
	return c.heads-c.answered == c.idles && c.requests.atRest() && !c.ln.closed()
}

// answerHits answers the hits at the start of p[:n], fresh from the
// socket, and reads on while they are all there is; it returns the bytes
// left for the owner at the start of p. c.mu is held.
func (c *conn) answerHits(a *answering, p []byte, n int) (int, error) {
	st := hitStates.Get().(*hitState)
	st.local.Addr = c.Conn.LocalAddr()
	defer func() {
		// Pooled without a hold on the connection or a stored body.
		st.local.Addr = nil
		st.w.reset()
		hitStates.Put(st)
	}()
	st.q.req.RemoteAddr = a.remoteAddr
	for {
		k := st.q.parseSimple(p[:n])
		if k == 0 || c.ln.closed() {
			return n, nil
		}
		head, body, ok := st.answer(a.front, c.tlsStateLocked())
		if !ok {
			return n, nil
		}
		c.observe(p[:k]) // the protocol, and the request counted
		c.answered++
		answeredHits.Inc()
		deadline := a.writeDeadline(len(body))
		if len(body) <= maxJoinedBody {
			head = append(head, body...)
			body = nil
		}
		st.w.buf = head[:0]
		if err := c.writeAnswerLocked(deadline, head, body); err != nil {
			return 0, err
		}
		if a.write == 0 && !deadline.IsZero() {
			// write_idle_timeout bounds this write alone, as the fast
			// path's: net/http, without a write timeout, sets no
			// deadline before it writes its next response.
			if err := c.setWriteLocked(time.Time{}); err != nil {
				return 0, err
			}
		}
		n = copy(p, p[k:n])
		if c.closeWanted {
			// A Close came during the write: the owner closes now, and
			// what follows is the next server's, or no one's. It was
			// read here, so it is followed here (as a Read detach cuts
			// short): the next server's count goes on from this one's.
			c.unanswered = append(c.unanswered, p[:n]...)
			c.scanHTTP1(p[:n])
			return 0, io.EOF
		}
		if n > 0 {
			continue // pipelined
		}
		// The next request gets the whole idle timeout, as from net/http.
		if a.idle > 0 {
			c.readDeadline = time.Now().Add(a.idle)
		}
		var err error
		var cut bool
		if n, err, cut = c.readSocketLocked(p); cut || err != nil {
			return n, err
		}
	}
}

// answer offers the request st.q holds to front, and returns the response
// head in st.w.buf's array and the body to send after it, if front answered.
func (st *hitState) answer(front frontdoor.HTTP1Answerer, tls *tls.ConnectionState) (head, body []byte, ok bool) {
	st.w.reset()
	if !front.AnswerHTTP1(&st.w, st.q.req, tls) {
		return nil, nil, false
	}
	head, body = st.w.response(st.q.req.Method, time.Now())
	return head, body, true
}

// writeDeadline is the write deadline net/http (write_timeout) or the fast
// path (write_idle_timeout, for a body larger than net/http's buffer)
// would give a response with a body of size bytes.
func (a *answering) writeDeadline(size int) time.Time {
	switch {
	case a.write > 0:
		return time.Now().Add(a.write)
	case a.writeIdle > 0 && size > 4<<10:
		return time.Now().Add(a.writeIdle)
	}
	return time.Time{}
}

// writeAnswerLocked writes a response by deadline. c.mu is held, and
// released while writing (a Close meanwhile is left to the owner:
// closeAfterAnswerLocked).
func (c *conn) writeAnswerLocked(deadline time.Time, head, body []byte) error {
	if err := c.setWriteLocked(deadline); err != nil {
		return err
	}
	c.writingAnswer = true
	c.mu.Unlock()
	_, err := c.Conn.Write(head)
	if err == nil && len(body) > 0 {
		_, err = c.Conn.Write(body)
	}
	c.mu.Lock()
	c.writingAnswer = false
	return err
}

// closeAfterAnswerLocked stops the answering, and reports whether a
// response is being written here: net/http, which saw no request, may
// close the connection as idle (Shutdown does) under it. The Close is then
// left to the owner: its Read returns EOF once the response is written,
// and the owner closes the connection, which then moves or closes as an
// idle one (a response net/http writes holds Shutdown the same way, bounded
// by the write's deadline). c.mu is held.
func (c *conn) closeAfterAnswerLocked() bool {
	c.closeWanted = true
	return c.writingAnswer
}

// tlsStateLocked is the connection's TLS state, nil on plain TCP: taken
// once, after the handshake a first Read completed. c.mu is held.
func (c *conn) tlsStateLocked() *tls.ConnectionState {
	if c.tlsState == nil {
		if tc, ok := c.Conn.(*tls.Conn); ok {
			st := tc.ConnectionState()
			c.tlsState = &st
		}
	}
	return c.tlsState
}
