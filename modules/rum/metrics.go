package rum

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/lastmile-edge/lastmile/internal/promreg"
)

// Buckets for 10 ms .. 30 s, about 1.7x apart.
var timeBuckets = prometheus.ExponentialBucketsRange(0.01, 30, 16)

var pageLabels = []string{"protocol", "cache", "conn", "nav", "browser", "device", "region"}

// timingLabels are fewer: histograms multiply series by their buckets.
var timingLabels = []string{"protocol", "cache", "conn", "device", "region"}

func timing(name, help string) *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "lastmile", Subsystem: "rum", Name: name, Help: help, Buckets: timeBuckets,
	}, timingLabels)
}

var metrics = struct {
	pageViews        *prometheus.CounterVec
	beacons          *prometheus.CounterVec
	rejected         *prometheus.CounterVec
	ttfb, load       *prometheus.HistogramVec
	lcp, inp, fcp    *prometheus.HistogramVec
	cls              *prometheus.HistogramVec
	edgeGap          *prometheus.HistogramVec
	bufferedDelivery *prometheus.CounterVec
	sinkDropped      prometheus.Counter
}{
	pageViews: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "rum", Name: "page_views_total",
		Help: "Page views reported by browsers.",
	}, pageLabels),
	beacons: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "rum", Name: "beacons_total",
		Help: "Beacons accepted, by how they came (http, webtransport).",
	}, []string{"transport"}),
	rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "rum", Name: "rejected_total",
		Help: "Beacons refused, by reason (too_large, malformed, version, range, schema, origin, rate_limited, method).",
	}, []string{"reason"}),
	ttfb: timing("ttfb_seconds", "Browser time to first byte of the document (requestStart to responseStart)."),
	load: timing("load_seconds", "Browser load event end, from navigation start."),
	lcp:  timing("lcp_seconds", "Largest Contentful Paint."),
	inp:  timing("inp_seconds", "Interaction to Next Paint."),
	fcp:  timing("fcp_seconds", "First Contentful Paint."),
	cls: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "lastmile", Subsystem: "rum", Name: "cls", Help: "Cumulative Layout Shift.",
		Buckets: []float64{0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1},
	}, timingLabels),
	edgeGap: timing("edge_gap_seconds", "Browser time to first byte minus the edge's own time for the document: the network and what is on it."),
	bufferedDelivery: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "rum", Name: "buffered_delivery_total",
		Help: "Page views with a buffered-delivery shape: a long wait for the first byte, then the whole document at once (a middlebox or antivirus holding the response).",
	}, []string{"protocol"}),
	sinkDropped: prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "rum", Name: "raw_sink_dropped_total",
		Help: "Beacons not written to the raw sink because it fell behind.",
	}),
}

func registerMetrics(reg prometheus.Registerer) error {
	return promreg.Register(reg, metrics.pageViews, metrics.beacons, metrics.rejected, metrics.ttfb, metrics.load,
		metrics.lcp, metrics.inp, metrics.fcp, metrics.cls, metrics.edgeGap, metrics.bufferedDelivery, metrics.sinkDropped)
}

// observe turns one accepted beacon into metrics.
func observe(b *beacon, c client) {
	cache, edgeMs, _ := b.edge()
	proto, cl, conn, dev, region := protocolLabel(b.P), cacheLabel(cache), connLabel(b.CR), c.device, c.region
	metrics.pageViews.WithLabelValues(proto, cl, conn, navLabel(b.NT), c.browser, dev, region).Inc()
	lv := []string{proto, cl, conn, dev, region}
	ttfb := b.T[tTTFB] / 1000
	metrics.ttfb.WithLabelValues(lv...).Observe(ttfb)
	if b.T[tLoad] >= 0 {
		metrics.load.WithLabelValues(lv...).Observe(b.T[tLoad] / 1000)
	}
	for _, v := range []struct {
		h *prometheus.HistogramVec
		i int
		s float64
	}{{metrics.lcp, wvLCP, 1000}, {metrics.inp, wvINP, 1000}, {metrics.fcp, wvFCP, 1000}, {metrics.cls, wvCLS, 1}} {
		if b.WV[v.i] >= 0 {
			v.h.WithLabelValues(lv...).Observe(b.WV[v.i] / v.s)
		}
	}
	if edgeMs >= 0 {
		metrics.edgeGap.WithLabelValues(lv...).Observe(max(0, b.T[tTTFB]-edgeMs) / 1000)
	}
	// Buffered delivery: a second or more before the first byte, then a
	// document of some size arriving in almost no time.
	if b.T[tTTFB] >= 1000 && b.SZ[0] >= 10<<10 && b.T[tResponse] >= 0 && b.T[tResponse] < 0.02*b.T[tTTFB] {
		metrics.bufferedDelivery.WithLabelValues(proto).Inc()
	}
}
