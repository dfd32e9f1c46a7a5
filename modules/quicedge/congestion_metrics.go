package quicedge

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/lastmile-edge/lastmile/internal/congestion/quichook"
)

// ccMetrics are each QUIC connection's congestion controller as it ended,
// by controller: where its window and rates settled, and how long it spent
// in each state (a kept connection stuck in recovery shows here).
var ccMetrics = struct {
	cwnd, pacingRate, deliveryRate *prometheus.HistogramVec
	stateSeconds                   *prometheus.CounterVec
	resume                         *prometheus.CounterVec
}{
	cwnd: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "lastmile", Subsystem: "quic", Name: "congestion_window_bytes",
		Help:    "Congestion window of each QUIC connection when it ended.",
		Buckets: prometheus.ExponentialBuckets(4<<10, 2, 12), // 4 KiB to 8 MiB
	}, []string{"controller"}),
	pacingRate: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "lastmile", Subsystem: "quic", Name: "pacing_rate_bytes_per_second",
		Help:    "Pacing rate of each QUIC connection when it ended.",
		Buckets: rateBuckets,
	}, []string{"controller"}),
	deliveryRate: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "lastmile", Subsystem: "quic", Name: "delivery_rate_bytes_per_second",
		Help:    "Bytes acknowledged per second with data in flight (idle gaps left out), per QUIC connection.",
		Buckets: rateBuckets,
	}, []string{"controller"}),
	stateSeconds: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "quic", Name: "congestion_state_seconds_total",
		Help: "Time ended QUIC connections spent in each congestion controller state.",
	}, []string{"controller", "state"}),
	resume: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "quic", Name: "careful_resume_connections_total",
		Help: "New BBR connections by what Careful Resume did: no_record (nothing saved for the client), " +
			"rtt_changed (saved RTT did not match), not_used (loss before the jump, or no larger window), " +
			"jumped (jump validated), retreated (loss during the jump).",
	}, []string{"outcome"}),
}

// rateBuckets span a 2G link's 16 KB/s to a fibre's 64 MB/s.
var rateBuckets = prometheus.ExponentialBuckets(16<<10, 2, 13)

// observeController records an ended connection's controller.
func observeController(st quichook.Stats) {
	if st.Paths == 0 {
		return // quic-go without lastmile's hook: nothing observed
	}
	ccMetrics.cwnd.WithLabelValues(st.Controller).Observe(float64(st.CongestionWindow))
	ccMetrics.pacingRate.WithLabelValues(st.Controller).Observe(float64(st.PacingRate))
	if rate := st.DeliveryRate(); rate > 0 {
		ccMetrics.deliveryRate.WithLabelValues(st.Controller).Observe(rate)
	}
	for state, d := range st.StateTime {
		ccMetrics.stateSeconds.WithLabelValues(st.Controller, state).Add(d.Seconds()) // never negative (quichook's elapsed)
	}
}
