package httpcache

import (
	"net/http"
	"strings"
	"time"
)

// verdict is what the cache does with a GET or HEAD. Both the route's
// handler (ServeHTTP) and the server's fast hit path (fastpath.go) take it
// from decide, so a request is judged by one set of rules whichever path
// it arrives on.
type verdict uint8

const (
	verdictMiss verdict = iota
	verdictAuthorization
	verdictOnlyIfCached
	verdictRange
	verdictFresh
	verdictMaxStale
	verdictStaleWhileRevalidate
	verdictRevalidate
)

// decision is a verdict with what it was reached on.
type decision struct {
	verdict      verdict
	primary, key string
	e            *entry
	reqCC        directives
	now          time.Time
	ttl          time.Duration
}

// decide judges a GET or HEAD against the store: request Cache-Control
// and Pragma, Authorization, Vary, freshness, max-stale and
// stale-while-revalidate (RFC 9111, RFC 5861).
func (h *Handler) decide(r *http.Request) decision {
	// A range is served from a stored response that may be used without
	// asking the origin; otherwise it is the origin's (partial responses
	// are not stored).
	ranged := r.Header.Get("Range") != ""
	cc := r.Header.Values("Cache-Control")
	var reqCC directives
	if len(cc) == 0 {
		reqCC = parseCacheControl(nil)
		if pragma := r.Header.Get("Pragma"); pragma != "" && strings.Contains(strings.ToLower(pragma), "no-cache") {
			reqCC.noCache = true // RFC 9111 section 5.4
		}
	} else {
		reqCC = parseCacheControl(cc)
	}
	d := decision{primary: h.Key.primaryKey(r), reqCC: reqCC}
	if r.Header.Get("Authorization") != "" {
		d.verdict = verdictAuthorization
		return d
	}
	d.e, d.key = h.lookup(d.primary, r)
	if d.e == nil {
		d.verdict = needsOrigin(reqCC, ranged, verdictMiss)
		return d
	}
	d.now = h.now()
	age := d.e.age(d.now)
	d.ttl = d.e.ttlAt(age)
	if d.e.policy.freshFor(reqCC, age, d.ttl) {
		d.verdict = verdictFresh
		return d
	}
	if staleness := -d.ttl; d.ttl <= 0 {
		if d.e.policy.maxStaleCovers(reqCC, staleness) {
			d.verdict = verdictMaxStale
			return d
		}
		if d.e.policy.swrCovers(reqCC, staleness) {
			d.verdict = verdictStaleWhileRevalidate
			return d
		}
	}
	d.verdict = needsOrigin(reqCC, ranged, verdictRevalidate)
	return d
}

// needsOrigin is the verdict for a request the store cannot answer alone:
// only-if-cached refuses, a range passes through, else fetch.
func needsOrigin(reqCC directives, ranged bool, fetch verdict) verdict {
	switch {
	case reqCC.onlyIfCached:
		return verdictOnlyIfCached
	case ranged:
		return verdictRange
	}
	return fetch
}

// serveFresh answers a fresh hit.
func (h *Handler) serveFresh(w http.ResponseWriter, r *http.Request, d decision, cs *cacheStatus) {
	freshHits.Inc()
	cs.hit, cs.ttl = true, d.ttl
	h.serveEntry(w, r, d.e, cs, d.now)
}

// serveMaxStale answers a stale entry the request's max-stale accepts.
func (h *Handler) serveMaxStale(w http.ResponseWriter, r *http.Request, d decision, cs *cacheStatus) {
	metrics.requests.WithLabelValues("stale").Inc()
	metrics.staleServed.WithLabelValues("max-stale").Inc()
	cs.hit, cs.ttl, cs.detail = true, d.ttl, "max-stale"
	h.serveEntry(w, r, d.e, cs, d.now)
}
