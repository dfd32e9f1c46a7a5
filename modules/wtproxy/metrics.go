package wtproxy

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// directionMetrics count what went one way through the relay.
type directionMetrics struct {
	bidiStreams, uniStreams     prometheus.Counter
	datagrams, datagramsDropped prometheus.Counter
	bytes                       prometheus.Counter
}

// proxyMetrics are process-wide so they survive reloads, like the
// sessions they count.
type proxyMetrics struct {
	sessions     prometheus.Counter
	sessionsOpen prometheus.Gauge
	refused      *prometheus.CounterVec
	streams      *prometheus.CounterVec
	datagramsVec *prometheus.CounterVec
	bytesVec     *prometheus.CounterVec
	dial         *prometheus.HistogramVec

	toUpstream, toClient directionMetrics
}

var metrics = newProxyMetrics()

func newProxyMetrics() *proxyMetrics {
	const ns, sub = "lastmile", "webtransport_proxy"
	m := &proxyMetrics{
		sessions: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "sessions_total",
			Help: "Browser sessions relayed to an upstream session.",
		}),
		sessionsOpen: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: ns, Subsystem: sub, Name: "sessions_open",
			Help: "Relayed sessions open now.",
		}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "refused_total",
			Help: "Sessions refused because the upstream session could not be opened, by reason (status: the upstream answered with an error status; timeout; unreachable; protocol: it chose an application protocol the browser did not offer).",
		}, []string{"reason"}),
		streams: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "streams_total",
			Help: "Streams relayed, by the way they were opened (to_upstream: opened by the browser) and type (bidi, uni).",
		}, []string{"direction", "type"}),
		datagramsVec: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "datagrams_total",
			Help: "Datagrams by direction and result (relayed; dropped: the other path could not carry it).",
		}, []string{"direction", "result"}),
		bytesVec: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "stream_bytes_total",
			Help: "Stream bytes relayed, by direction.",
		}, []string{"direction"}),
		dial: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: ns, Subsystem: sub, Name: "dial_seconds",
			Help:    "Time to open the upstream session, by connection (new: with a QUIC handshake; reused).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"conn"}),
	}
	for _, d := range []struct {
		name string
		dm   *directionMetrics
	}{{"to_upstream", &m.toUpstream}, {"to_client", &m.toClient}} {
		*d.dm = directionMetrics{
			bidiStreams:      m.streams.WithLabelValues(d.name, "bidi"),
			uniStreams:       m.streams.WithLabelValues(d.name, "uni"),
			datagrams:        m.datagramsVec.WithLabelValues(d.name, "relayed"),
			datagramsDropped: m.datagramsVec.WithLabelValues(d.name, "dropped"),
			bytes:            m.bytesVec.WithLabelValues(d.name),
		}
	}
	return m
}

func (m *proxyMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.sessions, m.sessionsOpen, m.refused, m.streams, m.datagramsVec, m.bytesVec, m.dial}
}

func (m *proxyMetrics) observeDial(d time.Duration, reused bool) {
	conn := "new"
	if reused {
		conn = "reused"
	}
	m.dial.WithLabelValues(conn).Observe(d.Seconds())
}
