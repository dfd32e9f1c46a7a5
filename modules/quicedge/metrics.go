package quicedge

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/quic-go/quic-go"

	"github.com/lastmile-edge/lastmile/internal/promreg"
	"github.com/lastmile-edge/lastmile/internal/requestmetric"
)

// metrics are process-wide so counters survive config reloads; each
// config's registry (the admin /metrics endpoint) registers them again.
var metrics = struct {
	connsAccepted prometheus.Counter
	connsOpen     prometheus.GaugeFunc
	handshakes    *prometheus.CounterVec
	zeroRTTConns  prometheus.Counter
	clientRTT     prometheus.Histogram
	clientLoss    prometheus.Histogram
	packetsSent   prometheus.Counter
	packetsLost   prometheus.Counter
	earlyRequests *prometheus.CounterVec
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
	// The last mile as QUIC saw it, per connection when it ends: the
	// users' RTT and how much of what the edge sent was lost, which is
	// what the design rests on (0.6-7% on mobile and Wi-Fi).
	clientRTT: prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: "lastmile", Subsystem: "quic", Name: "client_rtt_seconds",
		Help:    "Smoothed RTT of each QUIC connection when it ended.",
		Buckets: []float64{.005, .01, .025, .05, .1, .2, .35, .5, .75, 1, 1.5, 2.5, 5},
	}),
	clientLoss: prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: "lastmile", Subsystem: "quic", Name: "client_loss_ratio",
		Help:    "Share of the packets the edge sent that were lost, per QUIC connection of 20 packets or more.",
		Buckets: []float64{.001, .0025, .005, .01, .02, .035, .05, .07, .1, .2, .5},
	}),
	packetsSent: prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "quic", Name: "packets_sent_total",
		Help: "Packets the edge sent on ended QUIC connections.",
	}),
	packetsLost: prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "quic", Name: "packets_lost_total",
		Help: "Packets the edge sent on ended QUIC connections that were declared lost.",
	}),
}

// minPacketsForLoss keeps tiny connections (a handshake and a request)
// out of the loss histogram, where one lost packet would read as 10%.
const minPacketsForLoss = 20

// observeEnded records an ended connection's path statistics.
func observeEnded(st quic.ConnectionStats) {
	if st.SmoothedRTT > 0 {
		metrics.clientRTT.Observe(st.SmoothedRTT.Seconds())
	}
	metrics.packetsSent.Add(float64(st.PacketsSent))
	metrics.packetsLost.Add(float64(st.PacketsLost))
	if st.PacketsSent >= minPacketsForLoss {
		metrics.clientLoss.Observe(float64(st.PacketsLost) / float64(st.PacketsSent))
	}
}

func registerMetrics(reg prometheus.Registerer) error {
	if err := requestmetric.Register(reg); err != nil {
		return err
	}
	return promreg.Register(reg,
		metrics.connsAccepted, metrics.connsOpen, metrics.handshakes,
		metrics.zeroRTTConns, metrics.earlyRequests,
		metrics.clientRTT, metrics.clientLoss, metrics.packetsSent, metrics.packetsLost,
		ccMetrics.cwnd, ccMetrics.pacingRate, ccMetrics.deliveryRate, ccMetrics.stateSeconds, ccMetrics.resume)
}
