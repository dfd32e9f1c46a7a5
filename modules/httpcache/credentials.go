package httpcache

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// A request with credentials may be answered with one user's page. Such a
// response is stored only when the origin says, explicitly, that it may be
// shared (sharePermitted): a guess such as heuristic freshness never
// stores it, so no URL shape can lure a logged-in user into putting their
// page in the shared store (web cache deception).

// hasCredentials reports whether r carries something by which the origin
// may know the user: Authorization, a configured credential header, a
// TLS client certificate, or a cookie that is not in the key.
func (h *Handler) hasCredentials(r *http.Request) bool {
	if len(r.Header.Values("Authorization")) > 0 {
		return true
	}
	for _, f := range h.CredentialHeaders {
		if len(r.Header.Values(f)) > 0 {
			return true
		}
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		return true
	}
	return !h.Key.onlyKeyedCookies(r.Header.Values("Cookie"))
}

// onlyKeyedCookies reports whether the Cookie lines hold nothing but
// cookies named in the key, each once: such a request shares its stored
// response only with requests that send the same values, so those
// cookies identify no one. A line that does not parse counts as
// credentials: the origin may read it otherwise.
func (k *KeyConfig) onlyKeyedCookies(lines []string) bool {
	if len(k.Cookies) == 0 || len(lines) == 0 {
		return len(lines) == 0
	}
	var seen []string
	for _, line := range lines {
		cookies, err := http.ParseCookie(line)
		if err != nil {
			return false
		}
		for _, c := range cookies {
			if !slices.Contains(k.Cookies, c.Name) || slices.Contains(seen, c.Name) {
				return false
			}
			seen = append(seen, c.Name)
		}
	}
	return true
}

// sharePermitted reports whether a response (its edge directives) gives
// explicit permission to share it with other users: public, s-maxage, or
// freshness in a field meant for the edge (CDN-Cache-Control,
// Surrogate-Control). For a request with Authorization, must-revalidate
// does too (RFC 9111 section 3.5).
func sharePermitted(edge directives, targeted, authorization bool) bool {
	return edge.public || edge.sMaxAge >= 0 || (targeted && edge.maxAge >= 0) ||
		(authorization && edge.mustRevalidate)
}

// stripCredentials removes r's credentials, but for the fields in keep
// (the Vary fields of what is revalidated, lower-case) and the keyed
// cookies: a fetch the cache makes for its store (revalidation, refresh,
// prefetch) asks for the shared response, never for one user's.
func (h *Handler) stripCredentials(r *http.Request, keep []string) {
	kept := func(f string) bool { return slices.Contains(keep, strings.ToLower(f)) }
	for _, f := range append([]string{"Authorization"}, h.CredentialHeaders...) {
		if !kept(f) {
			r.Header.Del(f)
		}
	}
	if lines := r.Header.Values("Cookie"); len(lines) > 0 && !kept("Cookie") {
		r.Header.Del("Cookie")
		var keyed []string
		for _, line := range lines {
			cookies, err := http.ParseCookie(line)
			if err != nil {
				continue
			}
			for _, c := range cookies {
				if slices.Contains(h.Key.Cookies, c.Name) {
					keyed = append(keyed, c.String())
				}
			}
		}
		if len(keyed) > 0 {
			r.Header.Set("Cookie", strings.Join(keyed, "; "))
		}
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		// The scheme (in the key) stays; the client's certificate, which
		// placeholders could pass to the origin, goes.
		tlsState := *r.TLS
		tlsState.PeerCertificates, tlsState.VerifiedChains = nil, nil
		r.TLS = &tlsState
	}
}

func validateCredentialHeaders(fields []string) error {
	for _, f := range fields {
		if !validToken(f) {
			return fmt.Errorf("edge_cache: credential header %q is not a field name", f)
		}
	}
	return nil
}
