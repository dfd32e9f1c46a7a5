// Package frontdoor lets a module answer some requests of a Caddy server
// before the server's per-request set-up (replacer, request clone for the
// logger, vars, route walk), which costs more than a cache hit itself.
// The front handler is put in front of the server's net/http server (HTTP/1.1
// and HTTP/2) when it accepts its first connection, and quicedge asks for it
// on HTTP/3. Whatever it does not answer goes to the Caddy server as before.
package frontdoor

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// door is one server's front: built once, when its config has started
// (Build) or at its first connection or request, whichever is first; the
// server's routes are provisioned by then.
type door struct {
	srv   *caddyhttp.Server
	build func(srv *caddyhttp.Server) http.Handler
	once  sync.Once
	front http.Handler // nil: the server answers everything
}

var doors sync.Map // *caddyhttp.Server -> *door

// Install asks for a front on srv, made by build (which returns nil when
// the server's routes allow none). Call it while the server is
// provisioned, before it starts; the first Install of a server wins, and
// only it reports true.
func Install(srv *caddyhttp.Server, build func(srv *caddyhttp.Server) http.Handler) bool {
	d := &door{srv: srv, build: build}
	if _, loaded := doors.LoadOrStore(srv, d); loaded {
		return false
	}
	var swap sync.Once
	srv.RegisterConnContext(func(ctx context.Context, _ net.Conn) context.Context {
		// Every connection passes here before its goroutine starts, and
		// through the Once, so the swap happens before any request of the
		// server reads its Handler.
		swap.Do(func() {
			hs, ok := ctx.Value(http.ServerContextKey).(*http.Server)
			if ok && hs.Handler == http.Handler(srv) {
				hs.Handler = Handler(srv)
			}
		})
		return ctx
	})
	return true
}

// Handler is what serves srv's requests: its front, or srv itself.
func Handler(srv *caddyhttp.Server) http.Handler {
	v, ok := doors.Load(srv)
	if !ok {
		return srv
	}
	d := v.(*door)
	d.once.Do(func() { d.front = d.build(d.srv) })
	if d.front == nil {
		return srv
	}
	return d.front
}

// Build builds srv's front now if it was not built yet, so that whatever
// its builder decides (and logs) happens when the config starts, not at
// the server's first request.
func Build(srv *caddyhttp.Server) { Handler(srv) }

// Forget drops srv's front when its config is unloaded.
func Forget(srv *caddyhttp.Server) { doors.Delete(srv) }

// PassThrough is a handler that passes some requests on to the next
// handler as they came, and leaves their response as the next handler
// makes it (but for the fields a FieldAdder adds), doing nothing else a
// client could tell: no answer, no limit, no rewrite. A front may answer
// such a request past it. A handler that can refuse, rewrite or vary a
// response for a request must say false for it.
type PassThrough interface {
	// PassesThrough reports whether the handler passes r so. It must
	// not read r's body nor keep r.
	PassesThrough(r *http.Request) bool
}

// FieldAdder is a PassThrough that adds header fields to the responses it
// passes: a front answering past it adds them too.
type FieldAdder interface {
	PassThrough
	// AddFields adds to h what the handler adds to the response to r
	// before passing it on. The values it adds may be shared between
	// responses: a front must not modify them in place.
	AddFields(r *http.Request, h http.Header)
}

// HTTP1Answerer is a front that can also answer an HTTP/1.1 request a
// listener parsed itself, below net/http (client_tcp does, for requests it
// finds plainly simple: a GET or HEAD without a body, a single Host, no
// Range; see modules/clienttcp/h1hits.go). The front judges it exactly as
// it judges the same request from net/http, and answers only what the
// listener can write as net/http would: the response w gets is complete
// when AnswerHTTP1 returns (a status, fields, at most one body write, with
// a Content-Length or a body of at most 2 KiB and no Transfer-Encoding).
type HTTP1Answerer interface {
	// AnswerHTTP1 answers r into w if it can, and reports whether it
	// did; when it did not, w is untouched and r goes to net/http. tls
	// is the connection's TLS state (nil on plain TCP). It must not keep
	// r, w or what they hold past its return.
	AnswerHTTP1(w HTTP1ResponseWriter, r *http.Request, tls *tls.ConnectionState) bool
}

// HTTP1ResponseWriter is what an HTTP1Answerer answers into: as an
// http.ResponseWriter, whose response the listener writes as net/http
// would, or with WriteHead, a head the front encoded itself, byte for
// byte as net/http would write it (internal/h1wire).
type HTTP1ResponseWriter interface {
	http.ResponseWriter
	// HeadBuffer is an empty buffer to append WriteHead's head to.
	HeadBuffer() []byte
	// WriteHead is the whole response: its head, from the status line
	// to the blank line, and its body (none for a HEAD). The header and
	// WriteHeader are then not looked at.
	WriteHead(head, body []byte)
}

// HTTP1Front is srv's front if it answers HTTP/1.1 requests a listener
// parsed, else nil.
func HTTP1Front(srv *caddyhttp.Server) HTTP1Answerer {
	a, _ := Handler(srv).(HTTP1Answerer)
	return a
}
