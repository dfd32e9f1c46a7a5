package httpcache

import (
	"crypto/tls"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lastmile-edge/lastmile/internal/frontdoor"
)

// AnswerHTTP1 answers an HTTP/1.1 request that client_tcp parsed below
// net/http (frontdoor.HTTP1Answerer): the same site, pass-through, decide
// and serveEntry as ServeHTTP, for the hits whose response client_tcp can
// write byte for byte as net/http would (http1Writable). A fresh hit's
// head is the entry's, encoded once (fastpath_http1head.go); a max-stale
// one goes through the header map. A Range request goes to net/http:
// http.ServeContent's answer is its to write.
func (f *fastFront) AnswerHTTP1(w frontdoor.HTTP1ResponseWriter, r *http.Request, state *tls.ConnectionState) bool {
	// As site restores it behind client_tcp, from the connection.
	r.TLS = nil
	if f.tls {
		if state == nil {
			return false
		}
		r.TLS = state
	}
	s := f.site(r)
	if s == nil || !s.passesThrough(r) || r.Header.Get("Range") != "" {
		return false
	}
	start := time.Now()
	d, ok := s.cache.fastDecision(r)
	if !ok {
		return false
	}
	hd := s.cache.http1Head(d.e)
	switch {
	case hd.kind == http1Unwritable:
		return false
	case hd.kind == http1Encoded && d.verdict == verdictFresh:
		if s.cache.answerFreshHTTP1(w, r, d, hd, start, s.adders) {
			return true
		}
		clear(w.Header()) // the adders' fields: serveDecided adds them again
	}
	s.cache.serveDecided(w, r, d, start, s.adders)
	return true
}

// bufferBeforeChunking is net/http's HTTP/1.1 response buffer before it
// chooses chunking (its bufferBeforeChunkingSize): a body without
// Content-Length up to this size gets one, a longer one is chunked.
const bufferBeforeChunking = 2 << 10

// http1Writable reports whether net/http would write e's response with a
// Content-Length (its own, checked, or one it adds to a small body) or
// none (no body), never chunked or closing: what client_tcp writes itself.
func (h *Handler) http1Writable(e *entry) bool {
	if e.status < 200 || http.StatusText(e.status) == "" {
		return false
	}
	for _, hdr := range []http.Header{e.header, h.forwardedEdge(e)} {
		for k := range hdr {
			switch {
			case k == "Transfer-Encoding", k == "Trailer", k == "Connection", strings.HasPrefix(k, http.TrailerPrefix):
				return false
			}
		}
	}
	if e.status == http.StatusNoContent || e.status == http.StatusNotModified {
		return len(e.body) == 0
	}
	cl, has := e.header["Content-Length"]
	for _, f := range e.policy.stripFields {
		if strings.EqualFold(f, "Content-Length") {
			has = false
		}
	}
	if !has {
		return len(e.body) <= bufferBeforeChunking
	}
	if len(cl) != 1 {
		return false
	}
	n, err := strconv.ParseInt(cl[0], 10, 64)
	return err == nil && n == int64(len(e.body))
}

// forwardedEdge is the edge-only fields serveEntry adds to e's response.
func (h *Handler) forwardedEdge(e *entry) http.Header {
	if h.ForwardEdgeFields {
		return e.edge
	}
	return nil
}

var _ frontdoor.HTTP1Answerer = (*fastFront)(nil)
