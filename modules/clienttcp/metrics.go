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

// answeredHits counts the HTTP/1.1 hits client_tcp answered below
// net/http (h1hits.go); they are also in lastmile_cache_fast_hits_total
// and lastmile_http_requests_total.
var answeredHits = prometheus.NewCounter(prometheus.CounterOpts{
	Namespace: "lastmile", Subsystem: "client_tcp", Name: "answered_hits_total",
	Help: "HTTP/1.1 cache hits answered by client_tcp below net/http (also counted in lastmile_cache_fast_hits_total).",
})
