package anycast

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/lastmile-edge/lastmile/internal/promreg"
)

var (
	readyGauge = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "lastmile_ready", Help: "1 while the node is ready (not draining, origins reachable, cache store working).",
	})
	announcedGauge = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "lastmile_anycast_announced", Help: "1 while the embedded BGP speaker announces the anycast prefixes (or would, without one).",
	})
	transitions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "lastmile_anycast_transitions_total", Help: "Route changes: to announced or to withdrawn.",
	}, []string{"to"})
)

func setReady(b bool)     { readyGauge.Set(b01(b)) }
func setAnnounced(b bool) { announcedGauge.Set(b01(b)) }

func b01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func registerMetrics(reg prometheus.Registerer) error {
	return promreg.Register(reg, readyGauge, announcedGauge, transitions)
}
