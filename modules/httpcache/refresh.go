package httpcache

import (
	"fmt"
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// RefreshAhead refreshes an entry shortly before it expires if it was
// requested often enough, so popular content never goes stale (CoreDNS
// cache's prefetch is the model).
type RefreshAhead struct {
	// Amount of hits within Duration that make an entry popular. Default 3.
	Amount int `json:"amount,omitempty"`
	// Duration of the window hits are counted in. Default 1m.
	Duration caddy.Duration `json:"duration,omitempty"`
	// Percentage of the lifetime left at which a popular entry is
	// refreshed. Default 10.
	Percentage int `json:"percentage,omitempty"`
}

func (ra *RefreshAhead) setDefaults() {
	if ra.Amount == 0 {
		ra.Amount = 3
	}
	if ra.Duration == 0 {
		ra.Duration = caddy.Duration(time.Minute)
	}
	if ra.Percentage == 0 {
		ra.Percentage = 10
	}
}

func (ra *RefreshAhead) validate() error {
	if ra.Amount < 1 || ra.Percentage < 1 || ra.Percentage > 99 || ra.Duration <= 0 {
		return fmt.Errorf("edge_cache: refresh_ahead wants amount >= 1, a positive duration and a percentage from 1 to 99")
	}
	return nil
}

// maybeRefreshAhead counts a fresh hit and refreshes e in the background
// if it is popular and near its end.
func (h *Handler) maybeRefreshAhead(e *entry, key string, r *http.Request, next caddyhttp.Handler, ttl time.Duration, now time.Time) {
	ra := h.RefreshAhead
	if ra == nil || e.policy.lifetime <= 0 {
		return
	}
	start := e.windowStart.Load()
	if now.UnixNano()-start > int64(ra.Duration) {
		e.windowStart.Store(now.UnixNano())
		e.windowHits.Store(0)
	}
	hits := e.windowHits.Add(1)
	if hits < int64(ra.Amount) || !h.nearEnd(e, ttl) {
		return
	}
	if !e.refreshing.CompareAndSwap(false, true) {
		return
	}
	metrics.refreshAheads.Inc()
	h.revalidateInBackground(e, key, r, next)
}

// nearEnd reports whether a fresh entry is in the part of its lifetime
// where a popular one is refreshed ahead.
func (h *Handler) nearEnd(e *entry, ttl time.Duration) bool {
	ra := h.RefreshAhead
	return ra != nil && e.policy.lifetime > 0 && ttl <= e.policy.lifetime*time.Duration(ra.Percentage)/100
}
