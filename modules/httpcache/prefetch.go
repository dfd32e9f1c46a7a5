package httpcache

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// Prefetch warms the same-origin URLs named by Link: rel=preload or
// rel=prefetch on stored responses, so the subresources a page is about to
// ask for are at the edge when the browser asks.
type Prefetch struct {
	// Concurrency bounds the warming fetches in flight. Default 4.
	Concurrency int `json:"concurrency,omitempty"`
	// MaxLinks bounds the links taken from one response. Default 16.
	MaxLinks int `json:"max_links,omitempty"`
	// EarlyHints sends 103 Early Hints with the preload links of a stored
	// page while the edge revalidates it.
	EarlyHints bool `json:"early_hints,omitempty"`

	sem chan struct{}
}

func (p *Prefetch) setDefaults() {
	if p.Concurrency == 0 {
		p.Concurrency = 4
	}
	if p.MaxLinks == 0 {
		p.MaxLinks = 16
	}
	// Validate, which runs next, refuses a negative concurrency.
	p.sem = make(chan struct{}, max(p.Concurrency, 0))
}

// maxPrefetch bounds concurrency and max_links: warming is a side job,
// and one response must not set off thousands of origin fetches.
const maxPrefetch = 1024

func (p *Prefetch) validate() error {
	if p.Concurrency < 1 || p.Concurrency > maxPrefetch {
		return fmt.Errorf("edge_cache: prefetch concurrency %d: want 1 to %d", p.Concurrency, maxPrefetch)
	}
	if p.MaxLinks < 1 || p.MaxLinks > maxPrefetch {
		return fmt.Errorf("edge_cache: prefetch max_links %d: want 1 to %d", p.MaxLinks, maxPrefetch)
	}
	return nil
}

type prefetchKey struct{}

func isPrefetch(r *http.Request) bool { return r.Context().Value(prefetchKey{}) != nil }

// preloadLinks returns the URLs of Link fields with rel preload or
// prefetch.
func preloadLinks(h http.Header, limit int) []string {
	var urls []string
	for _, line := range h.Values("Link") {
		for _, link := range splitLinks(line) {
			target, params, ok := strings.Cut(link, ";")
			target = strings.TrimSpace(target)
			if !ok || len(target) < 2 || target[0] != '<' || target[len(target)-1] != '>' {
				continue
			}
			rel := linkParam(params, "rel")
			for _, r := range strings.Fields(strings.ToLower(rel)) {
				if r == "preload" || r == "prefetch" {
					urls = appendUnique(urls, target[1:len(target)-1])
					break
				}
			}
			if len(urls) >= limit {
				return urls
			}
		}
	}
	return urls
}

// splitLinks splits a Link field on the commas between links, not those
// inside <...> or quotes.
func splitLinks(s string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			quoted = !quoted
		case c == '<' && !quoted:
			depth++
		case c == '>' && !quoted && depth > 0:
			depth--
		case c == ',' && !quoted && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func linkParam(params, name string) string {
	for _, p := range strings.Split(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), name) {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return ""
}

// prefetchLinks warms the same-origin preload links of e, each once while
// it is fresh in the store (depth 1: warmed responses warm nothing).
func (h *Handler) prefetchLinks(e *entry, r *http.Request, next caddyhttp.Handler) {
	for _, link := range preloadLinks(e.header, h.Prefetch.MaxLinks) {
		u, err := r.URL.Parse(link)
		if err != nil || !sameOrigin(u, r) || (u.Scheme != "" && u.Scheme != schemeOf(r)) {
			continue
		}
		select {
		case h.Prefetch.sem <- struct{}{}:
		default:
			// Bounded: links beyond the concurrency are not warmed now;
			// the browser's own request will fetch them.
			return
		}
		if !h.warm(r, u, next) {
			<-h.Prefetch.sem
		}
	}
}

// warm fetches u into the store in the background unless it is fresh
// there or already being fetched; it reports whether it started.
func (h *Handler) warm(r *http.Request, u *url.URL, next caddyhttp.Handler) bool {
	target := &url.URL{Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery}
	probe := r.Clone(r.Context())
	probe.URL = target
	primary := h.Key.primaryKey(probe)
	cached, key := h.lookup(primary, probe)
	if cached != nil && cached.ttl(h.now()) > 0 {
		return false
	}
	fl, ok := h.flights.tryLead(key)
	if !ok {
		return false
	}
	metrics.prefetches.Inc()
	fw, cancel := h.backgroundFetch(r.WithContext(context.WithValue(r.Context(), prefetchKey{}, true)), fl, nil, target)
	go func() {
		defer func() { <-h.Prefetch.sem; cancel() }()
		fw.runDetached(next)
	}()
	return true
}

func schemeOf(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// sendEarlyHints tells the browser the preload links of a stored page
// while the edge revalidates it.
func (h *Handler) sendEarlyHints(w http.ResponseWriter, e *entry) {
	if h.Prefetch == nil || !h.Prefetch.EarlyHints || len(e.header.Values("Link")) == 0 {
		return
	}
	if len(preloadLinks(e.header, 1)) == 0 {
		return
	}
	w.Header()["Link"] = e.header.Values("Link")
	w.WriteHeader(http.StatusEarlyHints)
	delete(w.Header(), "Link")
}
