package httpcache

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// serveUnsafe forwards a request with an unsafe method and, if the origin
// answers with success, invalidates what it may have changed: the target
// URI and the same-origin Location and Content-Location (RFC 9111
// section 4.4).
func (h *Handler) serveUnsafe(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, cs *cacheStatus) error {
	cs.fwd, cs.detail = "bypass", "method"
	sw := &statusWriter{ResponseWriter: w, cs: cs}
	rec := &codeRecorder{statusWriter: sw}
	h.stripUnkeyed(r.Header)
	err := next.ServeHTTP(rec, r)
	if err != nil || rec.code < 200 || rec.code >= 400 {
		return err
	}
	h.invalidate(r, r.URL)
	for _, f := range []string{"Location", "Content-Location"} {
		if v := rec.Header().Get(f); v != "" {
			if u, err := r.URL.Parse(v); err == nil && sameOrigin(u, r) {
				h.invalidate(r, u)
			}
		}
	}
	return nil
}

// invalidate drops every stored variant of u (GET and HEAD share them).
func (h *Handler) invalidate(r *http.Request, u *url.URL) {
	target := r.Clone(r.Context())
	target.Method = http.MethodGet
	target.URL = u
	if u.Host != "" {
		target.Host = u.Host
	}
	primary := h.Key.primaryKey(target)
	// Deleting the primary key removes a plain entry or the vary record
	// that leads to the variants, so none can be found again.
	if h.store.Delete(primary) {
		metrics.invalidations.Inc()
	}
}

func sameOrigin(u *url.URL, r *http.Request) bool {
	return u.Host == "" || strings.EqualFold(u.Host, r.Host)
}

// codeRecorder remembers the final status.
type codeRecorder struct {
	*statusWriter
	code int
}

func (c *codeRecorder) WriteHeader(code int) {
	if code >= 200 && c.code == 0 {
		c.code = code
	}
	c.statusWriter.WriteHeader(code)
}

func (c *codeRecorder) Write(p []byte) (int, error) {
	if c.code == 0 {
		c.code = http.StatusOK
	}
	return c.statusWriter.Write(p)
}

func (c *codeRecorder) Unwrap() http.ResponseWriter { return c.statusWriter }
