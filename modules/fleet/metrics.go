package fleet

import "github.com/prometheus/client_golang/prometheus"

type fleetMetrics struct {
	published *prometheus.CounterVec
	applied   prometheus.Counter
	lag       prometheus.Histogram
	replays   *prometheus.CounterVec
	connected prometheus.Gauge
}

// metrics are process-wide: they outlive a reload's app.
var metrics = fleetMetrics{
	published: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "fleet", Name: "purge_published_total",
		Help: "Purges this node's purge API published to the stream, by result (ok: stored by JetStream; duplicate: its id was stored before; error: refused).",
	}, []string{"result"}),
	applied: prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "fleet", Name: "purge_applied_total",
		Help: "Purges from the stream this node applied.",
	}),
	lag: prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: "lastmile", Subsystem: "fleet", Name: "purge_lag_seconds",
		Help:    "Time from a purge's publication (the publishing node's clock) to its application on this node.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10, 60, 600},
	}),
	replays: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "fleet", Name: "replay_total",
		Help: "Catch-ups with the stream, by reason: start and reconnect (replayed from the last applied sequence), gap (the stream no longer held the missed purges), stream_reset (the stream was recreated), undecodable (a purge could not be read): the last three soft-purge everything.",
	}, []string{"reason"}),
	connected: prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: "lastmile", Subsystem: "fleet", Name: "connected",
		Help: "1 while this node is connected to NATS.",
	}),
}

func (m *fleetMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.published, m.applied, m.lag, m.replays, m.connected}
}
