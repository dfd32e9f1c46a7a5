package http3

import (
	"net/http"
	"strings"
)

// commonHeaderNames are the canonical names of common header fields, of
// responses and of requests (lastmile patch).
var commonHeaderNames = []string{
	"Accept-Ranges", "Access-Control-Allow-Credentials", "Access-Control-Allow-Headers",
	"Access-Control-Allow-Methods", "Access-Control-Allow-Origin", "Access-Control-Expose-Headers",
	"Access-Control-Max-Age", "Age", "Alt-Svc", "Cache-Control", "Cache-Status", "Content-Disposition",
	"Content-Encoding", "Content-Language", "Content-Length", "Content-Location", "Content-Range",
	"Content-Security-Policy", "Content-Type", "Date", "Etag", "Expires", "Last-Modified", "Link",
	"Location", "Priority", "Retry-After", "Server", "Server-Timing", "Set-Cookie",
	"Strict-Transport-Security", "Timing-Allow-Origin", "Vary", "Via", "Www-Authenticate",
	"X-Content-Type-Options", "X-Frame-Options",
	// requests'
	"Accept", "Accept-Encoding", "Accept-Language", "Authorization", "Cookie", "Dnt", "If-Match",
	"If-Modified-Since", "If-None-Match", "If-Range", "If-Unmodified-Since", "Origin", "Pragma",
	"Range", "Referer", "Sec-Ch-Ua", "Sec-Ch-Ua-Mobile", "Sec-Ch-Ua-Platform", "Sec-Fetch-Dest",
	"Sec-Fetch-Mode", "Sec-Fetch-Site", "Sec-Fetch-User", "Te", "Upgrade-Insecure-Requests",
	"User-Agent", "X-Forwarded-For", "X-Requested-With",
}

// lowerResponseHeaderNames maps the canonical names of common header
// fields to their HTTP/3 (lower-case) form (lastmile patch), so that
// encoding a response's header does not allocate a string per field;
// canonicalHeaderNames maps them back, so that parsing a received header
// does not either.
var lowerResponseHeaderNames, canonicalHeaderNames = func() (lower, canonical map[string]string) {
	lower = make(map[string]string, len(commonHeaderNames))
	canonical = make(map[string]string, len(commonHeaderNames))
	for _, n := range commonHeaderNames {
		lower[n] = strings.ToLower(n)
		canonical[strings.ToLower(n)] = n
	}
	return lower, canonical
}()

// lowerHeaderName returns name in lower case.
func lowerHeaderName(name string) string {
	if l, ok := lowerResponseHeaderNames[name]; ok {
		return l
	}
	return strings.ToLower(name)
}

// canonicalHeaderName returns the canonical form of a received field's
// name (lower-case in HTTP/3), as http.CanonicalHeaderKey does.
func canonicalHeaderName(name string) string {
	if c, ok := canonicalHeaderNames[name]; ok {
		return c
	}
	return http.CanonicalHeaderKey(name)
}
