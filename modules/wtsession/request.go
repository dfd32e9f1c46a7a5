package wtsession

import (
	"net/http"
	"net/url"
	"strings"
)

// RequestHandler is a session module that also answers plain HTTP
// requests on its path, such as fanout's Server-Sent Events for browsers
// without WebTransport: one Caddyfile block serves both, under the same
// origin policy and per-client limit.
type RequestHandler interface {
	// HandlesRequest reports whether r is the module's; other requests
	// pass to the next handler.
	HandlesRequest(r *http.Request) bool
	// ServeRequest answers r, for as long as the response lasts.
	ServeRequest(w http.ResponseWriter, r *http.Request) error
}

// serveRequest applies the origin policy and the per-client limit (a
// long-lived response counts as a session) to a plain request, and lets a
// page of another allowed origin read the answer (CORS).
func (h *Handler) serveRequest(rh RequestHandler, w http.ResponseWriter, r *http.Request) error {
	if !h.originAllowed(r) {
		return h.refuse("origin", http.StatusForbidden, "origin not allowed")
	}
	if origin := r.Header.Get("Origin"); origin != "" && !sameOrigin(origin, r.Host) {
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Add("Vary", "Origin")
	}
	client := ClientIP(r)
	if !sessionsPerClient.Acquire(client, h.MaxSessionsPerClient) {
		return h.refuse("limit", http.StatusTooManyRequests, "too many sessions from this client")
	}
	defer sessionsPerClient.Release(client)
	return rh.ServeRequest(w, r)
}

// sameOrigin reports whether a page of origin is the site at host itself.
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Scheme == "https" && strings.EqualFold(u.Host, host)
}
