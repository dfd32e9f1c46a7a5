package wtsession

import "github.com/prometheus/client_golang/prometheus"

// metrics are process-wide so they survive reloads, like the sessions.
var metrics = struct {
	open    prometheus.Gauge
	opened  prometheus.Counter
	refused *prometheus.CounterVec
}{
	open: prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: "lastmile", Subsystem: "webtransport", Name: "sessions_open",
		Help: "WebTransport sessions open now.",
	}),
	opened: prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "webtransport", Name: "sessions_opened_total",
		Help: "WebTransport sessions accepted.",
	}),
	refused: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "webtransport", Name: "sessions_refused_total",
		Help: "WebTransport session requests refused, by reason (origin, limit: per client, connection: per QUIC connection, session: refused by the session module, upgrade).",
	}, []string{"reason"}),
}
