package clienttcp

import (
	"net/http"
	"time"

	"github.com/lastmile-edge/lastmile/internal/frontdoor"
	"github.com/lastmile-edge/lastmile/internal/h1wire"
)

// responseWriter takes the front's answer to a simple request
// (frontdoor.HTTP1Answerer: complete when the front returns, one body
// write at most), either as a handler's response, which it writes as
// net/http's HTTP/1.1 server would write it to a keep-alive HTTP/1.1 GET
// or HEAD (internal/h1wire), or as a head the front encoded so itself
// (WriteHead). Reused from request to request.
type responseWriter struct {
	hdr    http.Header
	status int
	body   []byte // what the handler wrote, not copied: the front's stored body
	enc    h1wire.Encoder

	buf     []byte // the head's array, kept from request to request
	head    []byte // the front's own head (WriteHead), in buf
	encoded bool
}

func (w *responseWriter) Header() http.Header { return w.hdr }

func (w *responseWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *responseWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.body = p
	return len(p), nil
}

// HeadBuffer is buf, emptied, for the front's head.
func (w *responseWriter) HeadBuffer() []byte { return w.buf[:0] }

// WriteHead takes the front's whole response.
func (w *responseWriter) WriteHead(head, body []byte) {
	w.head, w.body, w.encoded = head, body, true
}

// reset readies w for the next request.
func (w *responseWriter) reset() {
	if len(w.hdr) > 0 {
		clear(w.hdr) // not free on an empty map: it clears its every slot
	}
	w.status, w.body, w.head, w.encoded = 0, nil, nil, false
}

// response returns the head of the response to a request of method,
// in buf's array, and the body to send after it.
func (w *responseWriter) response(method string, now time.Time) (head, body []byte) {
	if !w.encoded {
		return w.appendHead(w.buf[:0], method, now)
	}
	if method == http.MethodHead {
		return w.head, nil // never bytes after a HEAD's head, whatever the front gave
	}
	return w.head, w.body
}

// appendHead appends the head of the handler's response to a request of
// method to dst, and returns it with the body to send after it.
func (w *responseWriter) appendHead(dst []byte, method string, now time.Time) (head, body []byte) {
	code := w.status
	if code == 0 {
		code = http.StatusOK
	}
	body = w.body
	if method == http.MethodHead || h1wire.Unframed(code) != nil {
		body = nil // net/http drops a HEAD's body
	}
	return w.enc.AppendHead(dst, w.hdr, code, method, body, now), body
}

var _ frontdoor.HTTP1ResponseWriter = (*responseWriter)(nil)
