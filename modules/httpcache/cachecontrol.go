package httpcache

import (
	"net/http"
	"strconv"
	"strings"
)

// maxDelta caps delta-seconds at 2^31 as RFC 9111 section 1.2.2 allows.
const maxDelta = 1 << 31

// directives are the parsed Cache-Control (or CDN-Cache-Control,
// Surrogate-Control) directives of a request or response. Absent delta
// values are -1.
type directives struct {
	maxAge, sMaxAge, maxStale, minFresh int64
	staleWhileRevalidate, staleIfError  int64
	maxStaleAny                         bool

	noStore, noCache, private, public bool
	mustRevalidate, proxyRevalidate   bool
	onlyIfCached, immutable           bool
	noTransform, mustUnderstand       bool

	// noCacheFields and privateFields are the qualified forms'
	// field names, lower-cased (RFC 9111 sections 5.2.2.4 and 5.2.2.7).
	noCacheFields, privateFields []string
}

func newDirectives() directives {
	return directives{maxAge: -1, sMaxAge: -1, maxStale: -1, minFresh: -1, staleWhileRevalidate: -1, staleIfError: -1}
}

// parseCacheControl parses the field lines of a Cache-Control-style header
// (RFC 9111 section 5.2, list syntax of RFC 9110 section 5.6.1). Unknown
// directives are ignored; a malformed delta counts as 0 (stale, RFC 9111
// section 4.2.1), and so does a directive repeated with a different value.
func parseCacheControl(lines []string) directives {
	d := newDirectives()
	for _, line := range lines {
		for len(line) > 0 {
			var item string
			item, line = nextListItem(line)
			name, value, hasValue := strings.Cut(item, "=")
			name = strings.ToLower(strings.TrimSpace(name))
			if hasValue {
				value = unquote(strings.TrimSpace(value))
			}
			switch name {
			case "max-age":
				setDelta(&d.maxAge, value, hasValue)
			case "s-maxage":
				setDelta(&d.sMaxAge, value, hasValue)
			case "max-stale":
				if !hasValue {
					d.maxStaleAny = true
				} else {
					setDelta(&d.maxStale, value, true)
				}
			case "min-fresh":
				setDelta(&d.minFresh, value, hasValue)
			case "stale-while-revalidate":
				setDelta(&d.staleWhileRevalidate, value, hasValue)
			case "stale-if-error":
				setDelta(&d.staleIfError, value, hasValue)
			case "no-store":
				d.noStore = true
			case "no-cache":
				if hasValue && value != "" {
					d.noCacheFields = append(d.noCacheFields, fieldNames(value)...)
				} else {
					d.noCache = true
				}
			case "private":
				if hasValue && value != "" {
					d.privateFields = append(d.privateFields, fieldNames(value)...)
				} else {
					d.private = true
				}
			case "public":
				d.public = true
			case "must-revalidate":
				d.mustRevalidate = true
			case "proxy-revalidate":
				d.proxyRevalidate = true
			case "only-if-cached":
				d.onlyIfCached = true
			case "immutable":
				d.immutable = true
			case "no-transform":
				d.noTransform = true
			case "must-understand":
				d.mustUnderstand = true
			}
		}
	}
	return d
}

// nextListItem splits off the first comma-separated item, honouring
// quoted strings (a quoted no-cache field list holds commas).
func nextListItem(s string) (item, rest string) {
	inQuote, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			escaped = false
		case c == '\\' && inQuote:
			escaped = true
		case c == '"':
			inQuote = !inQuote
		case c == ',' && !inQuote:
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

func unquote(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
		if strings.IndexByte(v, '\\') >= 0 {
			var b strings.Builder
			for i := 0; i < len(v); i++ {
				if v[i] == '\\' && i+1 < len(v) {
					i++
				}
				b.WriteByte(v[i])
			}
			v = b.String()
		}
	}
	return v
}

func setDelta(dst *int64, value string, hasValue bool) {
	n := parseDelta(value, hasValue)
	if *dst >= 0 && *dst != n {
		n = 0 // conflicting duplicates: treat as stale
	}
	*dst = n
}

// parseDelta parses delta-seconds; anything malformed is 0.
func parseDelta(v string, hasValue bool) int64 {
	if !hasValue || v == "" {
		return 0
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0
		}
	}
	if len(v) > 10 {
		return maxDelta
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0
	}
	return min(n, maxDelta)
}

// fieldNames splits a comma-separated list of field names and lower-cases
// them; empty and malformed names are dropped.
func fieldNames(list string) []string {
	var names []string
	for _, n := range strings.Split(list, ",") {
		n = strings.ToLower(strings.TrimSpace(n))
		if n != "" && validToken(n) {
			names = append(names, n)
		}
	}
	return names
}

// validToken reports whether s is an RFC 9110 token.
func validToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return s != ""
}

// parseVary returns the lower-cased field names a response varies on, and
// whether it varies on "*" (never served from cache).
func parseVary(h http.Header) (names []string, star bool) {
	for _, line := range h.Values("Vary") {
		for _, n := range strings.Split(line, ",") {
			n = strings.ToLower(strings.TrimSpace(n))
			switch {
			case n == "*":
				star = true
			case n != "" && validToken(n):
				names = appendUnique(names, n)
			}
		}
	}
	return names, star
}

func appendUnique(list []string, s string) []string {
	for _, v := range list {
		if v == s {
			return list
		}
	}
	return append(list, s)
}
