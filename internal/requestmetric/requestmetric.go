// Package requestmetric is lastmile_http_requests_total{protocol}, counted
// where every request of a protocol passes whatever the route: HTTP/3 by
// the quic app, which serves it, and HTTP/1.1 and HTTP/2 by the client_tcp
// listener wrapper, which reads what clients send (Caddy 2.11 has no
// per-request hook in front of the routes for TCP: ConnState reports an
// HTTP/2 connection's busy periods, and misses an HTTP/1.1 request that
// arrived with the previous one, so client_tcp follows the bytes).
package requestmetric

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/lastmile-edge/lastmile/internal/promreg"
)

// requests is process-wide so the counts survive config reloads.
var requests = prometheus.NewCounterVec(prometheus.CounterOpts{
	Namespace: "lastmile", Subsystem: "http", Name: "requests_total",
	Help: "Requests by protocol (h1, h2, h3): h3 as the quic app serves them, h1 and h2 as client_tcp reads them " +
		"(servers without client_tcp after tls count only h3).",
}, []string{"protocol"})

// The series, made up front so that each reads 0 before its first request
// (a dashboard's protocol share then has all its terms).
var (
	HTTP1 = requests.WithLabelValues("h1")
	HTTP2 = requests.WithLabelValues("h2")
	HTTP3 = requests.WithLabelValues("h3")
)

// Register registers the metric in a config's registry.
func Register(reg prometheus.Registerer) error { return promreg.Register(reg, requests) }
