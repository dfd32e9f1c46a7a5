package httpcache

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// fetchWriter receives the origin's response from the next handler. It
// decides at the header whether the response can be stored or shared,
// passes it on to the leading client (if any), and buffers the body for
// waiters and the store.
type fetchWriter struct {
	h       *Handler
	client  http.ResponseWriter // nil for background fetches
	fl      *flight
	req     *http.Request
	cfg     policyConfig
	status  *cacheStatus
	header  http.Header
	stale   *entry    // what a revalidation refreshes, if any
	started time.Time // by the store's clock: the request time of RFC 9111 section 4.2.3

	// relay is the client leading a revalidation: it gets a response that
	// cannot be shared as it comes, since sending it to the origin again
	// would make one request two (RFC 9111 section 4.3.3).
	relay http.ResponseWriter
	// staleOnError: the stale entry may answer an origin error
	// (stale-if-error), so a 5xx neither replaces it nor is relayed.
	staleOnError bool

	wroteHeader bool
	code        int
	pol         policy
	buffering   bool
	tooLarge    bool
	notModified bool
}

// newFetchWriter prepares a fetch of r's response for the client at w
// (nil when the caller serves its client itself) and the flight it leads.
func (h *Handler) newFetchWriter(w http.ResponseWriter, r *http.Request, stale *entry, cs *cacheStatus) *fetchWriter {
	req := h.originRequest(r, stale)
	return &fetchWriter{
		h: h, client: w, req: req, cfg: h.policyConfig(req),
		status: cs, header: make(http.Header), stale: stale, started: h.now(),
	}
}

func (fw *fetchWriter) Header() http.Header { return fw.header }

func (fw *fetchWriter) WriteHeader(code int) {
	if fw.wroteHeader {
		return
	}
	if code < 200 {
		// 1xx (103 Early Hints) go to the client as they are.
		if fw.client != nil {
			copyHeader(fw.client.Header(), fw.header)
			fw.client.WriteHeader(code)
		}
		return
	}
	fw.wroteHeader = true
	fw.code = code
	fw.fl.fwdStatus = code
	fw.status.originDur = time.Since(fw.status.start)
	metrics.originFetches.WithLabelValues(strconv.Itoa(code/100) + "xx").Inc()

	if code == http.StatusNotModified && fw.stale != nil {
		// A revalidation succeeded: the stored body stands, with the
		// new header fields (RFC 9111 section 4.3.4).
		fw.notModified = true
		return
	}
	fw.cfg.now = fw.h.now() // the response's arrival, not the request's
	fw.pol = computePolicy(code, fw.header, fw.cfg)
	if code >= 500 && fw.staleOnError {
		fw.pol = notStorable("stale-if-error")
	}
	if fw.pol.storable {
		if cl := fw.header.Get("Content-Length"); cl != "" {
			if n, err := strconv.ParseInt(cl, 10, 64); err != nil || n > fw.h.MaxObjectBytes {
				fw.pol = notStorable("size")
			} else {
				fw.fl.body.grow(int(n))
			}
		}
	}
	credentials := fw.cfg.hasCredentials
	var outcome flightOutcome
	switch {
	case fw.pol.storable:
		outcome = outcomeShare
	case code >= 500 && !credentials:
		// Waiters get the same error instead of piling onto a failing
		// origin; it is not stored.
		outcome = outcomeShare
	default:
		outcome = outcomeRelease
	}
	fw.buffering = outcome == outcomeShare
	if outcome == outcomeRelease && fw.relay != nil && (code < 500 || !fw.staleOnError) {
		fw.client = fw.relay
	}
	if fw.pol.storable {
		fw.status.stored = true
	} else {
		fw.status.detail = fw.pol.reason
		countGuard(fw.pol.reason)
	}
	fw.fl.storable = fw.pol.storable
	fw.fl.setVariant(fw.header, fw.req)
	// The flight keeps the edge-only fields: its waiters may come through
	// a route that forwards them to a lower tier.
	shared := fw.header.Clone()
	fw.fl.ready(outcome, code, shared, nil)
	if fw.client != nil {
		copyHeader(fw.client.Header(), shared)
		fw.h.dropEdgeFields(fw.client.Header())
		fw.status.write(fw.client.Header())
		fw.client.WriteHeader(code)
	}
}

// dropEdgeFields removes the fields meant for the edge alone from a
// response header, unless this route answers a lower tier of lastmile
// caches, which obey them too.
func (h *Handler) dropEdgeFields(hdr http.Header) {
	if h.ForwardEdgeFields {
		return
	}
	for _, f := range edgeFields {
		delete(hdr, f)
	}
}

func (fw *fetchWriter) Write(p []byte) (int, error) {
	if !fw.wroteHeader {
		fw.WriteHeader(http.StatusOK)
	}
	if fw.notModified {
		return len(p), nil
	}
	if fw.buffering && !fw.tooLarge {
		if int64(fw.fl.body.len()+len(p)) > fw.h.MaxObjectBytes {
			fw.tooLarge = true
			fw.fl.body.finish(errBodyTooLarge)
		} else {
			fw.fl.body.write(p)
		}
	}
	if fw.client == nil {
		return len(p), nil
	}
	return fw.client.Write(p)
}

func (fw *fetchWriter) Flush() {
	if fw.client != nil {
		_ = http.NewResponseController(fw.client).Flush()
	}
}

// Unwrap lets http.ResponseController reach the client's writer.
func (fw *fetchWriter) Unwrap() http.ResponseWriter { return fw.client }

// run performs the fetch through next and ends the flight: waiters are
// released or failed, the response stored if it may be. A fetch nobody
// can join (an authorized miss) runs here too, on a flight of its own.
func (fw *fetchWriter) run(next caddyhttp.Handler) error {
	fl := fw.fl
	defer fw.h.flights.remove(fl)
	defer close(fl.done)
	defer fw.endOnPanic()
	err := next.ServeHTTP(fw, fw.req)
	if !fw.wroteHeader {
		if err == nil {
			fw.WriteHeader(http.StatusOK)
		} else {
			metrics.originFetches.WithLabelValues("error").Inc()
			fl.ready(outcomeFail, 0, nil, err)
			fl.body.finish(err)
			return err
		}
	}
	if err != nil {
		// The body broke off: nothing is stored, waiters abort.
		fl.body.finish(err)
		return err
	}
	if fw.notModified {
		e := fw.h.refreshed(fw.stale, fw.header, fw.req, fw.started)
		if !e.policy.storable {
			fw.status.detail = e.policy.reason
			fl.ready(outcomeRelease, 0, nil, nil)
			fl.body.finish(nil)
			return nil
		}
		fl.storable = true
		fw.status.stored, fw.status.fwdStatus = true, http.StatusNotModified
		fl.shareEntry(e, fw.req)
		fw.h.storeEntry(e, fw.req, next)
		return nil
	}
	if fw.tooLarge {
		return nil
	}
	fl.body.finish(nil)
	if fw.pol.storable && fw.req.Method == http.MethodGet {
		e := fw.h.newEntry(fw.code, fw.header, fl.body.bytes(), fw.pol, fw.req, fw.started)
		fl.entry = e
		fw.h.storeEntry(e, fw.req, next)
	}
	return nil
}

// endOnPanic ends the flight of a fetch that panicked (reverse_proxy
// aborts a response whose body broke off with http.ErrAbortHandler):
// waiters fail instead of waiting for headers or a body that will not
// come, and the panic goes on, aborting this fetch's client as the
// handler asked.
func (fw *fetchWriter) endOnPanic() {
	p := recover()
	if p == nil {
		return
	}
	metrics.originFetches.WithLabelValues("error").Inc()
	err := fmt.Errorf("origin fetch aborted: %v", p)
	select {
	case <-fw.fl.headerReady:
	default:
		fw.fl.ready(outcomeFail, 0, nil, err)
	}
	fw.fl.body.finish(err)
	panic(p)
}

// runDetached runs a fetch no client waits for (a refresh, a prefetch) on
// its own goroutine, where a panic would end the process: net/http
// recovers only the goroutines it serves requests on. An aborted response
// just ends the fetch; any other panic is logged with its stack, as
// net/http does.
func (fw *fetchWriter) runDetached(next caddyhttp.Handler) {
	defer func() {
		if p := recover(); p != nil && p != http.ErrAbortHandler {
			fw.h.logger.Error("background origin fetch panicked", zap.Any("panic", p), zap.Stack("stack"))
		}
	}()
	_ = fw.run(next)
}

// originRequest is the request the cache sends on a client's behalf: its
// own conditionals replace the client's (the cache wants a whole response
// to store), and unkeyed headers that could change the response are gone.
func (h *Handler) originRequest(r *http.Request, stale *entry) *http.Request {
	out := r.Clone(r.Context())
	for _, f := range []string{"If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range"} {
		out.Header.Del(f)
	}
	h.stripUnkeyed(out.Header)
	out.Header.Add("Surrogate-Capability", surrogateCapability)
	if stale != nil {
		// A revalidation asks about the stored, shared response, for the
		// store and every waiter: the client's credentials would fetch its
		// own page instead, and its 304 could carry its Set-Cookie.
		h.stripCredentials(out, stale.varyNames)
		// Waiters may join a revalidation, and a HEAD's answer has no
		// body to give them: revalidate with a GET.
		out.Method = http.MethodGet
		if etag := stale.header.Get("ETag"); etag != "" {
			out.Header.Set("If-None-Match", etag)
		}
		if lm := stale.header.Get("Last-Modified"); lm != "" {
			out.Header.Set("If-Modified-Since", lm)
		}
	}
	return out
}

// backgroundFetch prepares a fetch no client waits for (a refresh, a
// prefetch) from r: no credentials, its own deadline, and its own Caddy
// request state (vars, replacer), since handlers write to those while the
// client's request goes on.
func (h *Handler) backgroundFetch(r *http.Request, fl *flight, stale *entry, target *url.URL) (*fetchWriter, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), time.Duration(h.OriginTimeout))
	req := r.Clone(ctx)
	req.Method = http.MethodGet
	req.Header.Del("Range")
	h.stripCredentials(req, nil)
	if target != nil {
		req.URL = target
		req.RequestURI = target.RequestURI()
	}
	fw := &fetchWriter{
		h: h, fl: fl, cfg: h.policyConfig(req), stale: stale,
		status: &cacheStatus{start: time.Now(), name: h.statusItem}, header: make(http.Header), started: h.now(),
	}
	if srv, ok := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server); ok {
		req = caddyhttp.PrepareRequest(req, caddy.NewReplacer(), fw, srv)
	}
	fw.req = h.originRequest(req, stale)
	return fw, cancel
}

// unkeyedOverrides are request headers some frameworks let override the
// URL, host or method. Sent to the origin unkeyed, they let one client
// poison a stored response for all (web cache poisoning).
var unkeyedOverrides = []string{
	"X-Original-Url", "X-Rewrite-Url", "X-Forwarded-Host", "X-Forwarded-Server", "X-Host",
	"X-Forwarded-Scheme", "X-Forwarded-Prefix", "X-Http-Method-Override", "X-Http-Method", "X-Method-Override",
}

func (h *Handler) stripUnkeyed(hdr http.Header) {
	for _, f := range unkeyedOverrides {
		if !h.keyedHeader(f) {
			hdr.Del(f)
		}
	}
}

func (h *Handler) keyedHeader(name string) bool {
	for _, k := range h.Key.Headers {
		if http.CanonicalHeaderKey(k) == name {
			return true
		}
	}
	return false
}

func copyHeader(dst, src http.Header) {
	for k, v := range src {
		// Clipped, so an append by a later handler never writes into the
		// stored slice's spare capacity.
		dst[k] = v[:len(v):len(v)]
	}
}
