package quicedge

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/lastmile-edge/lastmile/internal/promreg"
)

// metrics are process-wide so counters survive config reloads; each
// config's registry (the admin /metrics endpoint) registers them again.
var metrics = struct {
	connsAccepted prometheus.Counter
	connsOpen     prometheus.GaugeFunc
	handshakes    *prometheus.CounterVec
	zeroRTTConns  prometheus.Counter
	earlyRequests *prometheus.CounterVec
	requests      *prometheus.CounterVec
}{
	connsAccepted: prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "quic", Name: "connections_total",
		Help: "QUIC connections accepted.",
	}),
	connsOpen: prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "lastmile", Subsystem: "quic", Name: "connections_open",
		Help: "QUIC connections open now.",
	}, func() float64 { return float64(openConns.Load()) }),
	handshakes: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "quic", Name: "handshakes_total",
		Help: "QUIC handshakes of accepted connections by result (ok, failed).",
	}, []string{"result"}),
	zeroRTTConns: prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "quic", Name: "zero_rtt_connections_total",
		Help: "QUIC connections whose 0-RTT data the server accepted.",
	}),
	earlyRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "quic", Name: "early_data_requests_total",
		Help: "HTTP/3 requests received in 0-RTT, accepted or refused with 425.",
	}, []string{"result"}),
	requests: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "http", Name: "requests_total",
		Help: "Requests by protocol (h1, h2, h3); h1 and h2 are counted by the alt_svc handler.",
	}, []string{"protocol"}),
}

// CountRequest counts one request of protocol ("h1", "h2", "h3").
func CountRequest(protocol string) { metrics.requests.WithLabelValues(protocol).Inc() }

func registerMetrics(reg prometheus.Registerer) error {
	return promreg.Register(reg,
		metrics.connsAccepted, metrics.connsOpen, metrics.handshakes,
		metrics.zeroRTTConns, metrics.earlyRequests, metrics.requests)
}
