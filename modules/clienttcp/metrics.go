package clienttcp

import "github.com/prometheus/client_golang/prometheus"

// metrics are process-wide so they count across the reloads they are
// about.
var metrics = struct {
	reloaded *prometheus.CounterVec
}{
	reloaded: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "client_tcp", Name: "reload_connections_total",
		Help: "Client connections of a replaced config, by outcome: handed_over (idle HTTP/1.1, moved to the new config's server), goaway (HTTP/2, graceful two-step GOAWAY).",
	}, []string{"outcome"}),
}
