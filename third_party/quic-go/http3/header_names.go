package http3

import "strings"

// lowerResponseHeaderNames maps the canonical names of common response
// header fields to their HTTP/3 (lower-case) form (lastmile patch), so
// that encoding a response's header does not allocate a string per field.
var lowerResponseHeaderNames = func() map[string]string {
	names := []string{
		"Accept-Ranges", "Access-Control-Allow-Credentials", "Access-Control-Allow-Headers",
		"Access-Control-Allow-Methods", "Access-Control-Allow-Origin", "Access-Control-Expose-Headers",
		"Access-Control-Max-Age", "Age", "Alt-Svc", "Cache-Control", "Cache-Status", "Content-Disposition",
		"Content-Encoding", "Content-Language", "Content-Length", "Content-Location", "Content-Range",
		"Content-Security-Policy", "Content-Type", "Date", "Etag", "Expires", "Last-Modified", "Link",
		"Location", "Priority", "Retry-After", "Server", "Server-Timing", "Set-Cookie",
		"Strict-Transport-Security", "Timing-Allow-Origin", "Vary", "Via", "Www-Authenticate",
		"X-Content-Type-Options", "X-Frame-Options",
	}
	m := make(map[string]string, len(names))
	for _, n := range names {
		m[n] = strings.ToLower(n)
	}
	return m
}()

// lowerHeaderName returns name in lower case.
func lowerHeaderName(name string) string {
	if l, ok := lowerResponseHeaderNames[name]; ok {
		return l
	}
	return strings.ToLower(name)
}
