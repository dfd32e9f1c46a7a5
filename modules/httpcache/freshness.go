package httpcache

import (
	"net/http"
	"strings"
	"time"
)

// policy is what the edge learned from a response's headers about storing
// and serving it (RFC 9111 sections 3 and 4.2, RFC 5861, RFC 9213).
type policy struct {
	storable bool
	reason   string // why not storable, for Cache-Status detail

	lifetime       time.Duration
	heuristic      bool
	micro          bool          // stored by micro_cache
	swr, sie       time.Duration // -1: absent
	explicitSIE    bool          // the origin sent stale-if-error itself
	explicitSWR    bool          // the origin sent stale-while-revalidate itself
	mustRevalidate bool          // must-revalidate or proxy-revalidate
	// sMaxAge: s-maxage implies proxy-revalidate (RFC 9111 section
	// 5.2.2.10), except where the response itself grants serving stale:
	// the more specific permission wins, as the common
	// "s-maxage=1, stale-while-revalidate=59" expects.
	sMaxAge     bool
	noCache     bool     // revalidate before every use
	stripFields []string // qualified no-cache / private fields: never served from cache
}

// edgeFields are response fields meant for the edge only: they drive its
// caching and are not forwarded to browsers (RFC 9213 section 2.1 for
// CDN-Cache-Control; Surrogate-Control and the tag fields by convention).
var edgeFields = []string{"Cdn-Cache-Control", "Surrogate-Control", "Surrogate-Key", "Cache-Tag"}

// heuristicStatus lists the status codes cacheable by default (RFC 9110
// section 15.1) that this cache stores; 206 is not stored.
func heuristicStatus(code int) bool {
	switch code {
	case 200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501:
		return true
	}
	return false
}

// staleAllowed reports whether the entry may be served stale under a
// permission that is not the origin's own stale-* directive (a client's
// max-stale, a route default).
func (p policy) staleAllowed() bool { return !p.mustRevalidate && !p.sMaxAge }

// swrAllowed reports whether stale-while-revalidate applies.
func (p policy) swrAllowed() bool {
	return !p.mustRevalidate && !p.noCache && (!p.sMaxAge || p.explicitSWR)
}

// freshFor reports whether an entry of this age, fresh for ttl more, may
// be served without validation to a request with directives req (RFC 9111
// sections 4.2, 5.2.1.1, 5.2.1.3, 5.2.1.4 and 5.2.2.4).
func (p policy) freshFor(req directives, age, ttl time.Duration) bool {
	return ttl > 0 && !p.noCache && !req.noCache &&
		(req.maxAge < 0 || age <= time.Duration(req.maxAge)*time.Second) &&
		(req.minFresh < 0 || ttl >= time.Duration(req.minFresh)*time.Second)
}

// maxStaleCovers reports whether the request's max-stale lets an entry
// this stale be served (RFC 9111 section 5.2.1.2).
func (p policy) maxStaleCovers(req directives, staleness time.Duration) bool {
	return p.staleAllowed() && !p.noCache && !req.noCache &&
		(req.maxStaleAny || (req.maxStale >= 0 && staleness <= time.Duration(req.maxStale)*time.Second))
}

// swrCovers reports whether stale-while-revalidate lets an entry this
// stale be served while it is refreshed (RFC 5861 section 3); a request's
// no-cache wants the origin's answer first.
func (p policy) swrCovers(req directives, staleness time.Duration) bool {
	return p.swrAllowed() && !req.noCache && p.swr >= 0 && staleness <= p.swr
}

// sieAllowed reports whether stale-if-error applies: a route default does
// not override must-revalidate, s-maxage or no-cache (RFC 9111 section
// 5.2.2.4: no use without successful validation), the origin's own
// stale-if-error does.
func (p policy) sieAllowed() bool {
	return p.explicitSIE || (!p.mustRevalidate && !p.sMaxAge && !p.noCache)
}

// understoodStatus are the final statuses whose caching rules this cache
// knows (RFC 9111 section 5.2.2.3): stored with a validator alone, and
// under must-understand.
func understoodStatus(code int) bool {
	return heuristicStatus(code) || code == 302 || code == 303 || code == 307 || code == 451
}

// policyConfig is the route's say on freshness.
type policyConfig struct {
	heuristic        bool
	heuristicMax     time.Duration
	microCache       time.Duration
	microCacheCreds  bool
	defaultSWR       time.Duration
	defaultSIE       time.Duration
	hasCredentials   bool // the request may identify a user (Handler.hasCredentials)
	hasAuthorization bool
	staticExt        string // the path's static extension, when the armour is on
	requestNoStore   bool   // the request said no-store
	// now is the store clock's reading when the response arrived: the
	// Date of a response that has none (RFC 9110 section 6.6.1).
	now time.Time
}

// computePolicy decides whether a response may be stored and for how long
// it is fresh at the edge.
func computePolicy(status int, h http.Header, cfg policyConfig) policy {
	p := policy{swr: -1, sie: -1}
	cc := parseCacheControl(h.Values("Cache-Control"))
	edge, targeted := cc, false
	if v := h.Values("Cdn-Cache-Control"); len(v) > 0 {
		edge, targeted = parseCacheControl(v), true
	} else if sc, ok := parseSurrogateControl(h.Values("Surrogate-Control")); ok {
		edge, targeted = sc, true
	}
	switch {
	case status < 200 || status == http.StatusPartialContent || status == http.StatusNotModified:
		// 206 is not stored (no ranges are assembled); a 304 only updates.
		return notStorable("status")
	case edge.mustUnderstand && !understoodStatus(status):
		// RFC 9111 section 5.2.2.3.
		return notStorable("must-understand")
	case edge.noStore || (!targeted && cc.noStore):
		return notStorable("no-store")
	case cfg.requestNoStore:
		// RFC 9111 section 5.2.1.5: nothing of this exchange is stored.
		return notStorable("request-no-store")
	case edge.private:
		return notStorable("private")
	case len(h.Values("Set-Cookie")) > 0:
		// A shared cache may keep such a response by the RFC, but the
		// cookie belongs to one user; the edge never risks it.
		return notStorable("set-cookie")
	}
	if _, star := parseVary(h); star {
		return notStorable("vary-star")
	}
	if cfg.hasAuthorization && !sharePermitted(edge, targeted, true) {
		// RFC 9111 section 3.5, and a field meant for the edge.
		return notStorable("authorization")
	}

	p.noCache = edge.noCache
	p.mustRevalidate = edge.mustRevalidate || edge.proxyRevalidate
	p.sMaxAge = edge.sMaxAge >= 0
	p.explicitSWR = edge.staleWhileRevalidate >= 0
	p.stripFields = append(append([]string(nil), edge.noCacheFields...), edge.privateFields...)
	p.swr = seconds(edge.staleWhileRevalidate, cfg.defaultSWR)
	p.sie = seconds(edge.staleIfError, cfg.defaultSIE)
	p.explicitSIE = edge.staleIfError >= 0

	explicit := true
	switch {
	case edge.sMaxAge >= 0:
		p.lifetime = time.Duration(edge.sMaxAge) * time.Second
	case edge.maxAge >= 0:
		p.lifetime = time.Duration(edge.maxAge) * time.Second
	case !targeted && h.Get("Expires") != "":
		// A targeted field replaces Expires too (RFC 9213 section 2.1).
		p.lifetime = expiresLifetime(h, cfg.now)
	default:
		explicit = false
	}
	if !explicit && !understoodStatus(status) && !edge.public {
		// Any final status may be stored with explicit freshness or
		// public (RFC 9111 sections 3 and 4.2.2); otherwise only those
		// this cache understands.
		return notStorable("status")
	}
	if !explicit {
		switch {
		case cfg.microCache > 0 && len(h.Values("Cache-Control")) == 0 && !targeted &&
			(!cfg.hasCredentials || cfg.microCacheCreds) && status == http.StatusOK:
			p.lifetime = cfg.microCache
			p.micro = true
		case cfg.heuristic && !cfg.hasCredentials && (edge.public || heuristicStatus(status)) && h.Get("Last-Modified") != "":
			// RFC 9111 section 4.2.2: a fraction of the time since the
			// last modification; 10% as the RFC suggests.
			if lm, err := http.ParseTime(h.Get("Last-Modified")); err == nil {
				age := responseDate(h, cfg.now).Sub(lm)
				if age > 0 {
					p.lifetime = min(age/10, cfg.heuristicMax)
					p.heuristic = true
				}
			}
		}
	}
	hasValidator := h.Get("ETag") != "" || h.Get("Last-Modified") != ""
	if p.lifetime <= 0 && !hasValidator && p.swr <= 0 {
		return notStorable("no-freshness")
	}
	if cfg.hasCredentials && !p.micro && !sharePermitted(edge, targeted, cfg.hasAuthorization) {
		// Possibly one user's page (see credentials.go).
		return notStorable("credentials")
	}
	if (p.heuristic || p.micro) && !armourAllows(cfg.staticExt, h.Get("Content-Type")) {
		return notStorable("armour")
	}
	p.storable = true
	return p
}

func notStorable(reason string) policy {
	return policy{reason: reason, swr: -1, sie: -1}
}

func seconds(v int64, def time.Duration) time.Duration {
	if v >= 0 {
		return time.Duration(v) * time.Second
	}
	if def > 0 {
		return def
	}
	return -1
}

// expiresLifetime is Expires minus Date; an invalid Expires means already
// expired (RFC 9111 section 5.3).
func expiresLifetime(h http.Header, now time.Time) time.Duration {
	exp, err := http.ParseTime(h.Get("Expires"))
	if err != nil {
		return 0
	}
	return max(0, exp.Sub(responseDate(h, now)))
}

// responseDate is the Date field, or now, when the response was received,
// if it has none or an invalid one (RFC 9110 section 6.6.1).
func responseDate(h http.Header, now time.Time) time.Time {
	if d, err := http.ParseTime(h.Get("Date")); err == nil {
		return d
	}
	return now
}

// ageHeader parses Age (RFC 9111 section 5.1). Anything but one field line
// of digits (a list, two lines, a sign, a fraction, a parameter, garbage)
// is taken as the greatest age (section 1.2.2): a response whose age cannot
// be trusted is stale, not fresh.
func ageHeader(h http.Header) time.Duration {
	lines := h.Values("Age")
	if len(lines) == 0 {
		return 0
	}
	n := int64(maxDelta)
	if v := strings.TrimSpace(lines[0]); len(lines) == 1 && v != "" && strings.Trim(v, "0123456789") == "" {
		n = parseDelta(v, true)
	}
	return time.Duration(n) * time.Second
}
