package httpcache

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	cs := &cacheStatus{start: time.Now(), name: h.statusItem}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	default:
		if !safeMethod(r.Method) {
			return h.serveUnsafe(w, r, next, cs)
		}
		return h.pass(w, r, next, cs, "method")
	}
	d := h.decide(r)
	switch d.verdict {
	case verdictAuthorization:
		// Never answered from the store: the response may differ per
		// user. It may still be stored if the origin says it is shared.
		return h.miss(w, r, next, cs, d.primary, d.primary, "authorization")
	case verdictOnlyIfCached:
		return h.onlyIfCachedMiss(w, cs)
	case verdictRange:
		return h.pass(w, r, next, cs, "range")
	case verdictMiss:
		return h.miss(w, r, next, cs, d.primary, d.key, "")
	case verdictFresh:
		h.serveFresh(w, r, d, cs)
		h.maybeRefreshAhead(d.e, d.key, r, next, d.ttl, d.now)
		return nil
	case verdictMaxStale:
		h.serveMaxStale(w, r, d, cs)
		return nil
	case verdictStaleWhileRevalidate:
		metrics.requests.WithLabelValues("stale").Inc()
		metrics.staleServed.WithLabelValues("stale-while-revalidate").Inc()
		cs.hit, cs.ttl, cs.detail = true, d.ttl, "stale-while-revalidate"
		h.revalidateInBackground(d.e, d.key, r, next)
		h.serveEntry(w, r, d.e, cs, d.now)
		return nil
	}
	return h.revalidate(w, r, next, cs, d.e, d.key, d.reqCC)
}

// safeMethod is RFC 9110 section 9.2.1's list.
func safeMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// lookup finds the stored variant that matches r.
func (h *Handler) lookup(primary string, r *http.Request) (*entry, string) {
	v, ok := h.store.Get(primary)
	if !ok {
		return nil, primary
	}
	switch v := v.(type) {
	case *entry:
		return v, primary
	case *varyRecord:
		key := variantKey(primary, v.names, r)
		if ev, ok := h.store.Get(key); ok {
			if e, ok := ev.(*entry); ok {
				return e, key
			}
		}
		return nil, key
	}
	return nil, primary
}

func (h *Handler) policyConfig(r *http.Request) policyConfig {
	staticExt := ""
	if h.armourOn() {
		staticExt = staticExtension(r.URL.Path)
	}
	return policyConfig{
		heuristic:        h.heuristicOn(),
		heuristicMax:     time.Duration(h.HeuristicMax),
		microCache:       time.Duration(h.MicroCache),
		microCacheCreds:  h.MicroCacheCredentials,
		defaultSWR:       time.Duration(h.StaleWhileRevalidate),
		defaultSIE:       time.Duration(h.StaleIfError),
		hasAuthorization: len(r.Header.Values("Authorization")) > 0,
		hasCredentials:   h.hasCredentials(r),
		staticExt:        staticExt,
		requestNoStore:   len(r.Header.Values("Cache-Control")) > 0 && parseCacheControl(r.Header.Values("Cache-Control")).noStore,
		now:              h.now(),
	}
}

// miss fetches from the origin, coalescing with concurrent misses for key.
func (h *Handler) miss(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, cs *cacheStatus, primary, key, detail string) error {
	if r.Method == http.MethodHead || detail != "" {
		metrics.requests.WithLabelValues("miss").Inc()
		cs.fwd, cs.detail = "miss", detail
		// Not coalesced: a HEAD has no body to share, an authorized
		// request's response is its own until the origin says otherwise.
		if r.Method == http.MethodHead {
			return h.pass(w, r, next, cs, "head")
		}
		fw := h.newFetchWriter(w, r, nil, cs)
		fw.fl = newFlight(key) // not in h.flights: nobody joins it
		return fw.run(next)
	}
	fl, leader := h.flights.join(key)
	if leader {
		// The store was read before the join: a fetch of this key may
		// have stored its response and ended in between, and would be
		// fetched a second time. Read it again now that later misses wait
		// on this flight.
		if d := h.decide(r); d.verdict == verdictFresh && d.key == key {
			fl.shareEntry(d.e, r)
			close(fl.done)
			h.flights.remove(fl)
			h.serveFresh(w, r, d, cs)
			return nil
		}
	}
	metrics.requests.WithLabelValues("miss").Inc()
	cs.fwd = "miss"
	if !leader {
		return h.wait(w, r, next, cs, fl)
	}
	fw := h.newFetchWriter(w, r, nil, cs)
	fw.fl = fl
	return fw.run(next)
}

// wait serves a coalesced waiter from the leader's fetch.
func (h *Handler) wait(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, cs *cacheStatus, fl *flight) error {
	metrics.coalesced.Inc()
	select {
	case <-fl.headerReady:
	case <-r.Context().Done():
		return r.Context().Err()
	}
	switch fl.outcome {
	case outcomeFail:
		return fl.err
	case outcomeRelease:
		cs.detail = "released"
		return h.pass(w, r, next, cs, "")
	}
	if !fl.sharedWith(r) {
		// Another variant than this request selects: it fetches its own.
		cs.detail = "variant"
		return h.pass(w, r, next, cs, "")
	}
	cs.fwd, cs.detail, cs.collapsed = "miss", "", true
	cs.stored = fl.storable
	h.serveFlight(w, r, fl, cs)
	return nil
}

// serveFlight streams a flight's shared response to a client other than
// the one that led it. The flight may have been led through another route
// on the same store, so this handler decides about the edge-only fields.
func (h *Handler) serveFlight(w http.ResponseWriter, r *http.Request, fl *flight, cs *cacheStatus) {
	copyHeader(w.Header(), fl.header)
	h.dropEdgeFields(w.Header())
	cs.write(w.Header())
	w.WriteHeader(fl.status)
	if r.Method != http.MethodHead {
		fl.body.streamTo(w)
	}
}

// revalidate asks the origin whether e is still good, for this client and
// any concurrent ones; if the origin fails, stale-if-error may answer.
func (h *Handler) revalidate(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, cs *cacheStatus, e *entry, key string, reqCC directives) error {
	metrics.requests.WithLabelValues("revalidate").Inc()
	cs.fwd = "stale"
	h.sendEarlyHints(w, e)
	fl, leader := h.flights.join(key)
	if leader {
		// The fetch serves every waiter, so this client leaving must not
		// cancel it; a hung origin must not hold them past origin_timeout
		// (stale-if-error answers then).
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), time.Duration(h.OriginTimeout))
		fw := h.newFetchWriter(nil, r.WithContext(ctx), e, cs)
		fw.fl, fw.relay = fl, w
		fw.staleOnError = h.staleIfErrorAllowed(e, reqCC, time.Now())
		err := fw.run(next)
		cancel()
		if fw.client != nil {
			// Relayed: this client has had the origin's response.
			return err
		}
	} else {
		metrics.coalesced.Inc()
	}
	select {
	case <-fl.done:
	case <-r.Context().Done():
		return r.Context().Err()
	}
	now := h.now()
	failed := fl.outcome == outcomeFail || fl.status >= 500
	if failed && h.staleIfErrorAllowed(e, reqCC, now) {
		metrics.staleServed.WithLabelValues("stale-if-error").Inc()
		cs.hit, cs.fwd, cs.ttl, cs.detail = true, "", e.ttl(now), "stale-if-error"
		h.serveEntry(w, r, e, cs, now)
		return nil
	}
	if fl.outcome == outcomeFail {
		return fl.err
	}
	if !fl.sharedWith(r) {
		// The new response varies on a field this client sent otherwise.
		cs.detail = "released"
		return h.pass(w, r, next, cs, "")
	}
	if fl.entry != nil {
		cs.fwdStatus, cs.stored = fl.fwdStatus, true
		h.serveEntry(w, r, fl.entry, cs, now)
		return nil
	}
	if fl.outcome == outcomeRelease {
		// The new response may not be shared: this client fetches its own.
		cs.detail = "released"
		return h.pass(w, r, next, cs, "")
	}
	h.serveFlight(w, r, fl, cs)
	return nil
}

func (h *Handler) staleIfErrorAllowed(e *entry, reqCC directives, now time.Time) bool {
	staleness := -e.ttl(now)
	window := e.policy.sie
	if reqCC.staleIfError >= 0 {
		window = max(window, time.Duration(reqCC.staleIfError)*time.Second)
	}
	// must-revalidate forbids stale unless the origin itself granted
	// stale-if-error (a route default does not override it).
	if !e.policy.sieAllowed() {
		return false
	}
	return window >= 0 && staleness <= window
}

// revalidateInBackground refreshes e once, however many requests see it
// stale meanwhile.
func (h *Handler) revalidateInBackground(e *entry, key string, r *http.Request, next caddyhttp.Handler) {
	fl, ok := h.flights.tryLead(key)
	if !ok {
		return
	}
	fw, cancel := h.backgroundFetch(r, fl, e, nil)
	go func() {
		defer cancel()
		fw.runDetached(next)
	}()
}

// pass sends r to the origin untouched by the cache, saying why.
func (h *Handler) pass(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, cs *cacheStatus, detail string) error {
	if detail != "" {
		cs.fwd, cs.detail = "bypass", detail
	} else if cs.fwd == "" {
		cs.fwd = "miss"
	}
	sw := &statusWriter{ResponseWriter: w, cs: cs}
	return next.ServeHTTP(sw, r)
}

func (h *Handler) onlyIfCachedMiss(w http.ResponseWriter, cs *cacheStatus) error {
	cs.fwd, cs.detail = "miss", "only-if-cached"
	cs.write(w.Header())
	w.WriteHeader(http.StatusGatewayTimeout) // RFC 9111 section 5.2.1.7
	return nil
}

// serveEntry answers from a stored entry, with 304 if the client's
// validators match.
func (h *Handler) serveEntry(w http.ResponseWriter, r *http.Request, e *entry, cs *cacheStatus, now time.Time) {
	hdr := w.Header()
	copyHeader(hdr, e.header)
	if h.ForwardEdgeFields {
		copyHeader(hdr, e.edge)
	}
	for _, f := range e.policy.stripFields {
		hdr.Del(f)
	}
	if age := e.age(now); cs.hit && cs.fwd == "" && cs.detail == "" {
		h.writeFreshHit(hdr, e, cs, age)
	} else {
		hdr["Age"] = []string{strconv.FormatInt(int64(max(0, age)/time.Second), 10)}
		cs.write(hdr)
	}
	if e.status == http.StatusOK && r.Header.Get("Range") != "" {
		// The range of the stored response (RFC 9110 section 14);
		// ServeContent also evaluates If-Range and the preconditions.
		if _, typed := hdr["Content-Type"]; !typed {
			hdr["Content-Type"] = nil // no sniffing: served as stored
		}
		lm, _ := http.ParseTime(e.header.Get("Last-Modified"))
		http.ServeContent(w, r, "", lm, bytes.NewReader(e.body))
		return
	}
	if notModified(r, e) {
		delete(hdr, "Content-Length")
		delete(hdr, "Content-Type")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.WriteHeader(e.status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(e.body)
	}
}

// notModified evaluates If-None-Match (weak comparison) or, without it,
// If-Modified-Since against a stored 200 (RFC 9110 section 13.2.2,
// RFC 9111 section 4.3.2).
func notModified(r *http.Request, e *entry) bool {
	if e.status != http.StatusOK {
		return false
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		etag := strings.TrimPrefix(e.header.Get("ETag"), "W/")
		if etag == "" {
			return false
		}
		for t := range strings.SplitSeq(inm, ",") { // not Split: a hit allocates nothing of its own
			t = strings.TrimSpace(t)
			if t == "*" || strings.TrimPrefix(t, "W/") == etag {
				return true
			}
		}
		return false
	}
	if ims := r.Header.Get("If-Modified-Since"); ims != "" {
		since, err := http.ParseTime(ims)
		if err != nil {
			return false
		}
		// Without Last-Modified, the stored response was current as of
		// its Date, or when it was received (RFC 9111 section 4.3.2).
		lm, err := http.ParseTime(e.header.Get("Last-Modified"))
		if err != nil {
			lm = e.date
		}
		return !lm.After(since)
	}
	return false
}

// newEntry makes a stored entry of a complete response.
func (h *Handler) newEntry(status int, header http.Header, body []byte, pol policy, r *http.Request, requestTime time.Time) *entry {
	now := h.now()
	stored := header.Clone()
	tags := parseTags(header.Values("Surrogate-Key"), header.Values("Cache-Tag"))
	// The edge-only fields are kept apart: served only by a route that
	// forwards them to a lower tier, and kept through a 304's refresh.
	var edge http.Header
	for _, f := range edgeFields {
		if v, ok := stored[f]; ok {
			if edge == nil {
				edge = make(http.Header, 1)
			}
			edge[f] = v
			delete(stored, f)
		}
	}
	varyNames, _ := parseVary(header)
	e := &entry{
		status: status, header: stored, edge: edge, body: body,
		requestTime: requestTime, responseTime: now, date: responseDate(header, now), ageValue: ageHeader(header),
		policy: pol, varyNames: varyNames, tags: tags, url: requestURL(r),
	}
	// cap, not len: a body buffered without Content-Length grew by
	// appends, and its spare capacity is held as long as the entry. The
	// heads its HTTP/1.1 and HTTP/3 hits may encode (fastpath_http1head.go,
	// fastpath_http3head.go) are charged up front: the store weighs an
	// entry once.
	e.size = cap(body) + headerSize(stored) + headerSize(edge) + entryOverhead +
		encodedHeadCharge(stored, edge, pol.stripFields) + http3HeadCharge(stored, edge, pol.stripFields)
	return e
}

// bodyFields describe the stored body itself: a 304 does not replace them
// (RFC 9111 section 3.2), or the stored bytes would be served under
// another coding, digest, range or validator.
var bodyFields = map[string]bool{
	"Content-Length": true, "Content-Encoding": true, "Content-Md5": true, "Content-Range": true, "Etag": true,
}

// refreshed is e updated by a 304: new header fields replace the stored
// ones, except those of the body, which stays (RFC 9111 section 4.3.4).
func (h *Handler) refreshed(e *entry, header http.Header, r *http.Request, requestTime time.Time) *entry {
	merged := e.header.Clone()
	// The stored edge-only fields stand unless the 304 replaces them:
	// CDN-Cache-Control a 304 does not repeat still governs the edge.
	copyHeader(merged, e.edge)
	// The refreshed response is as old as the 304 says, not as the stored
	// one was when it arrived.
	delete(merged, "Age")
	for k, v := range header {
		if bodyFields[k] {
			continue
		}
		merged[k] = v
	}
	// A 304 can make the response unshareable (Set-Cookie, private): the
	// caller then neither stores nor shares it.
	pol := computePolicy(e.status, merged, h.policyConfig(r))
	return h.newEntry(e.status, merged, e.body, pol, r, requestTime)
}

// storeEntry stores e under the key its Vary calls for.
func (h *Handler) storeEntry(e *entry, r *http.Request, next caddyhttp.Handler) {
	primary := h.Key.primaryKey(r)
	if len(e.varyNames) == 0 {
		h.store.Set(primary, e, e.size)
	} else {
		rec := &varyRecord{names: e.varyNames, url: e.url}
		h.store.Set(primary, rec, rec.size())
		h.store.Set(variantKey(primary, e.varyNames, r), e, e.size)
	}
	metrics.stores.Inc()
	if h.Prefetch != nil && !isPrefetch(r) {
		h.prefetchLinks(e, r, next)
	}
}

// requestURL is the URL an entry is purged by.
func requestURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	u := scheme + "://" + strings.ToLower(r.Host) + r.URL.EscapedPath()
	if r.URL.RawQuery != "" {
		u += "?" + r.URL.RawQuery
	}
	return u
}

// statusWriter adds Cache-Status and Server-Timing to a passed-through
// response.
type statusWriter struct {
	http.ResponseWriter
	cs          *cacheStatus
	wroteHeader bool
}

func (sw *statusWriter) WriteHeader(code int) {
	if !sw.wroteHeader && code >= 200 {
		sw.wroteHeader = true
		sw.cs.originDur = time.Since(sw.cs.start)
		sw.cs.write(sw.Header())
	}
	sw.ResponseWriter.WriteHeader(code)
}

func (sw *statusWriter) Write(p []byte) (int, error) {
	if !sw.wroteHeader {
		sw.WriteHeader(http.StatusOK)
	}
	return sw.ResponseWriter.Write(p)
}

func (sw *statusWriter) Unwrap() http.ResponseWriter { return sw.ResponseWriter }
