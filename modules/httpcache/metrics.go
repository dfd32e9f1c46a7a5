package httpcache

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/lastmile-edge/lastmile/internal/promreg"
)

// metrics are process-wide, like the stores they describe.
var metrics = struct {
	requests      *prometheus.CounterVec
	staleServed   *prometheus.CounterVec
	coalesced     prometheus.Counter
	originFetches *prometheus.CounterVec
	stores        prometheus.Counter
	evictions     prometheus.Counter
	invalidations prometheus.Counter
	purges        *prometheus.CounterVec
	refreshAheads prometheus.Counter
	prefetches    prometheus.Counter
	guards        *prometheus.CounterVec
	storeBytes    *prometheus.GaugeVec
	storeEntries  *prometheus.GaugeVec
}{
	requests: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "cache", Name: "requests_total",
		Help: "Cacheable requests by outcome: hit (fresh), stale (served stale from cache: stale-while-revalidate, max-stale), miss, revalidate (stale, asked the origin).",
	}, []string{"outcome"}),
	staleServed: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "cache", Name: "stale_served_total",
		Help: "Stale responses served, by reason (stale-while-revalidate, stale-if-error, max-stale).",
	}, []string{"reason"}),
	coalesced: prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "cache", Name: "coalesced_total",
		Help: "Requests that waited for another request's origin fetch instead of making their own.",
	}),
	originFetches: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "cache", Name: "origin_fetches_total",
		Help: "Fetches the cache made from the origin, by status class (2xx..5xx, error).",
	}, []string{"status"}),
	stores: prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "cache", Name: "stores_total",
		Help: "Responses stored (new or refreshed).",
	}),
	evictions: prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "cache", Name: "evictions_total",
		Help: "Entries evicted to stay within the byte budget.",
	}),
	invalidations: prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "cache", Name: "invalidations_total",
		Help: "Entries invalidated by successful unsafe requests (RFC 9111 section 4.4).",
	}),
	purges: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "cache", Name: "purged_total",
		Help: "Entries purged through the admin API, by kind (url, prefix, tag, all) and mode (soft, hard).",
	}, []string{"kind", "mode"}),
	refreshAheads: prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "cache", Name: "refresh_ahead_total",
		Help: "Popular entries refreshed before they expired.",
	}),
	prefetches: prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "cache", Name: "prefetches_total",
		Help: "Preload links warmed into the cache.",
	}),
	guards: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "cache", Name: "deception_refused_total",
		Help: "Responses not stored that could have served one user's page to others (web cache deception), by guard: credentials (a request with credentials, no explicit permission to share), armour (a static extension with another Content-Type).",
	}, []string{"guard"}),
	storeBytes: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "lastmile", Subsystem: "cache", Name: "stored_bytes",
		Help: "Bytes charged against each store's budget.",
	}, []string{"cache"}),
	storeEntries: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "lastmile", Subsystem: "cache", Name: "stored_entries",
		Help: "Entries in each store.",
	}, []string{"cache"}),
}

// freshHits is requests_total{outcome="hit"}, looked up once: every fresh
// hit counts it.
var freshHits = metrics.requests.WithLabelValues("hit")

// storeCollector refreshes the store gauges when scraped.
type storeCollector struct{}

func (storeCollector) Describe(ch chan<- *prometheus.Desc) {
	metrics.storeBytes.Describe(ch)
	metrics.storeEntries.Describe(ch)
}

func (storeCollector) Collect(ch chan<- prometheus.Metric) {
	storesByName.Range(func(k, v any) bool {
		n, b := v.(*namedStore).Usage()
		metrics.storeBytes.WithLabelValues(k.(string)).Set(float64(b))
		metrics.storeEntries.WithLabelValues(k.(string)).Set(float64(n))
		return true
	})
	metrics.storeBytes.Collect(ch)
	metrics.storeEntries.Collect(ch)
}

var theStoreCollector = storeCollector{}

func registerMetrics(reg prometheus.Registerer) error {
	return promreg.Register(reg,
		metrics.requests, metrics.staleServed, metrics.coalesced, metrics.originFetches,
		metrics.stores, metrics.evictions, metrics.invalidations, metrics.purges,
		metrics.refreshAheads, metrics.prefetches, metrics.guards, theStoreCollector)
}

// countGuard counts a refusal by a deception guard (see computePolicy).
func countGuard(reason string) {
	if reason == "credentials" || reason == "armour" {
		metrics.guards.WithLabelValues(reason).Inc()
	}
}
