// Package httpcache is lastmile's edge cache: a Caddy handler in front of
// reverse_proxy that stores shared responses by RFC 9111, serves stale by
// RFC 5861, coalesces concurrent misses, refreshes popular entries ahead of
// expiry, warms preloaded links and can be purged by URL, prefix or tag.
package httpcache

import (
	"fmt"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// Handler is the edge cache.
type Handler struct {
	// Name picks the store; handlers with one name share it, and a store
	// outlives config reloads. Default "default".
	Name string `json:"name,omitempty"`

	// MaxBytes is the store's budget: entries, headers and bodies. Default
	// 256 MiB.
	MaxBytes int64 `json:"max_bytes,omitempty"`

	// MaxObjectBytes: larger responses are streamed, not stored. Default
	// 16 MiB.
	MaxObjectBytes int64 `json:"max_object_bytes,omitempty"`

	// Key configures the cache key.
	Key KeyConfig `json:"key,omitzero"`

	// Heuristic enables heuristic freshness (RFC 9111 section 4.2.2) for
	// responses with Last-Modified and no explicit freshness. Default on.
	Heuristic *bool `json:"heuristic,omitempty"`

	// HeuristicMax caps a heuristic lifetime. Default 1h.
	HeuristicMax caddy.Duration `json:"heuristic_max,omitempty"`

	// StaleWhileRevalidate and StaleIfError are edge defaults for
	// responses that do not say (RFC 5861).
	StaleWhileRevalidate caddy.Duration `json:"stale_while_revalidate,omitempty"`
	StaleIfError         caddy.Duration `json:"stale_if_error,omitempty"`

	// MicroCache stores 200 responses that carry no cache headers at all
	// for this long. Off by default; never for responses with Set-Cookie or
	// private, nor for requests with credentials (see CredentialHeaders)
	// unless MicroCacheCredentials.
	MicroCache            caddy.Duration `json:"micro_cache,omitempty"`
	MicroCacheCredentials bool           `json:"micro_cache_credentials,omitempty"`

	// CredentialHeaders names request fields that, like Authorization and
	// cookies, tell the origin who the user is (an API key, a session
	// token, what forward_auth copies in). A response to a request with
	// credentials is stored only if the origin explicitly lets shared
	// caches keep it (public, s-maxage, CDN-Cache-Control or
	// Surrogate-Control freshness), or by micro_cache ... credentials.
	CredentialHeaders []string `json:"credential_headers,omitempty"`

	// DeceptionArmour refuses to store, on heuristic freshness or
	// micro-caching, a response whose Content-Type is not what the static
	// extension of its path says (text/html at /account/x.css). Default
	// on.
	DeceptionArmour *bool `json:"deception_armour,omitempty"`

	// OriginTimeout bounds an origin fetch the cache makes on its own
	// (revalidation, refresh-ahead, prefetch). Default 30s.
	OriginTimeout caddy.Duration `json:"origin_timeout,omitempty"`

	// RefreshAhead refreshes entries requested often before they expire.
	RefreshAhead *RefreshAhead `json:"refresh_ahead,omitempty"`

	// Prefetch warms the same-origin URLs of Link: rel=preload/prefetch
	// headers of stored responses.
	Prefetch *Prefetch `json:"prefetch,omitempty"`

	// StatusName identifies this cache in Cache-Status lists (RFC 9211
	// section 2). Default "lastmile"; in a fleet each tier names itself
	// (edge-fra-1, shield-ams-1), so a response's list says which cache
	// did what, origin side first.
	StatusName string `json:"status_name,omitempty"`

	// HitFields says how much a fresh hit says about itself: "full"
	// (default) writes Cache-Status with the entry's remaining ttl and
	// Server-Timing with the edge's time; "compact" writes Cache-Status
	// "<status_name>; hit" and no Server-Timing, so the fields a hit adds
	// repeat from hit to hit and HPACK/QPACK send them as references.
	// Stale and missed responses always carry the full detail.
	HitFields string `json:"hit_fields,omitempty"`

	// ForwardEdgeFields keeps the edge-only response fields
	// (CDN-Cache-Control, Surrogate-Control, Surrogate-Key, Cache-Tag) on
	// the responses this route sends. Set it on a shield's route that
	// answers lower-tier lastmile caches, never browsers: the lower tier
	// then obeys the origin's CDN directives as this cache does (a
	// CDN-Cache-Control: no-store stays out of every tier, not only this
	// one) and keeps the tags that purges name.
	ForwardEdgeFields bool `json:"forward_edge_fields,omitempty"`

	// PurgeToken is the bearer token the purge API demands for this
	// cache's store. Without one the store cannot be purged remotely.
	PurgeToken string `json:"purge_token,omitempty"`

	statusItem string // StatusName as written in Cache-Status
	store      *namedStore
	flights    *flights
	logger     *zap.Logger
	ctx        caddy.Context
	app        *caddyhttp.App // whose servers get the fast hit path
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.edge_cache",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision sets defaults and opens the store.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.ctx = ctx
	h.logger = ctx.Logger()
	if h.Name == "" {
		h.Name = "default"
	}
	if h.MaxBytes == 0 {
		h.MaxBytes = 256 << 20
	}
	if h.MaxObjectBytes == 0 {
		// Large enough for any page, API response or image worth sharing;
		// video and downloads stream through.
		h.MaxObjectBytes = 16 << 20
	}
	if h.StatusName == "" {
		h.StatusName = defaultStatusName
	}
	h.statusItem = statusItem(h.StatusName)
	if h.HeuristicMax == 0 {
		h.HeuristicMax = caddy.Duration(time.Hour)
	}
	if h.OriginTimeout == 0 {
		h.OriginTimeout = caddy.Duration(30 * time.Second)
	}
	if h.RefreshAhead != nil {
		h.RefreshAhead.setDefaults()
	}
	if h.Prefetch != nil {
		h.Prefetch.setDefaults()
	}
	if err := registerMetrics(ctx.GetMetricsRegistry()); err != nil {
		return err
	}
	// A named store outlives configs: the running one's would take this
	// config's budget before Caddy calls Validate.
	if err := h.Validate(); err != nil {
		return err
	}
	store, err := openStore(h.Name, uint64(h.MaxBytes), h.PurgeToken)
	if err != nil {
		return err
	}
	h.store = store
	h.flights = store.flights
	return h.installFastPath(ctx)
}

// maxStoreBytes bounds max_bytes: 1 TiB, far above any memory, so a typo
// in the unit is caught rather than taken as a budget the host lacks.
const maxStoreBytes = 1 << 40

// Validate checks the limits once Provision has set the defaults, so JSON
// configs get the checks Caddyfiles get.
func (h *Handler) Validate() error {
	if h.MaxBytes < 1 || h.MaxBytes > maxStoreBytes {
		return fmt.Errorf("edge_cache: max_bytes %d: want 1 byte to 1 TiB", h.MaxBytes)
	}
	if h.MaxObjectBytes < 1 {
		return fmt.Errorf("edge_cache: max_object_bytes %d: want a positive size", h.MaxObjectBytes)
	}
	if h.MaxObjectBytes > h.MaxBytes {
		return fmt.Errorf("edge_cache: max_object_bytes (%d) exceeds max_bytes (%d)", h.MaxObjectBytes, h.MaxBytes)
	}
	for _, d := range []struct {
		name string
		d    caddy.Duration
	}{
		{"heuristic_max", h.HeuristicMax}, {"stale_while_revalidate", h.StaleWhileRevalidate},
		{"stale_if_error", h.StaleIfError}, {"micro_cache", h.MicroCache}, {"origin_timeout", h.OriginTimeout},
	} {
		if d.d < 0 {
			return fmt.Errorf("edge_cache: %s %s: must not be negative", d.name, time.Duration(d.d))
		}
	}
	switch h.HitFields {
	case "", hitFieldsFull, hitFieldsCompact:
	default:
		return fmt.Errorf("edge_cache: hit_fields %q: want %q or %q", h.HitFields, hitFieldsFull, hitFieldsCompact)
	}
	if h.StatusName != "" && !validStatusName(h.StatusName) {
		return fmt.Errorf("edge_cache: status_name %q: want 1 to 64 printable ASCII characters", h.StatusName)
	}
	if h.RefreshAhead != nil {
		if err := h.RefreshAhead.validate(); err != nil {
			return err
		}
	}
	if h.Prefetch != nil {
		if err := h.Prefetch.validate(); err != nil {
			return err
		}
	}
	return validateCredentialHeaders(h.CredentialHeaders)
}

// Cleanup releases the store.
func (h *Handler) Cleanup() error {
	h.forgetFastPath()
	if h.store != nil {
		return closeStore(h.Name)
	}
	return nil
}

// now reads the store's clock.
func (h *Handler) now() time.Time { return h.store.clock.Now() }

func (h *Handler) heuristicOn() bool { return h.Heuristic == nil || *h.Heuristic }

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
