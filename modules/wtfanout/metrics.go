package wtfanout

import "github.com/prometheus/client_golang/prometheus"

// metrics are process-wide so they survive reloads, like the hubs and
// sessions they count. No metric is labelled by channel: channel names
// come from clients, and a label per name would let them grow the
// registry without bound.
var metrics = struct {
	sessions   prometheus.Gauge
	subs       *prometheus.GaugeVec
	channels   prometheus.Gauge
	upstreams  prometheus.Gauge
	connects   *prometheus.CounterVec
	reconnects prometheus.Counter
	received   prometheus.Counter
	delivered  *prometheus.CounterVec
	missed     *prometheus.CounterVec
	dropped    *prometheus.CounterVec
	closed     *prometheus.CounterVec
	errors     *prometheus.CounterVec
	delay      *prometheus.HistogramVec
	// roundWrites shows whether deliveries share packets: quic-go packs
	// the writes of one round of a connection's writer together.
	roundWrites prometheus.Histogram
}{
	sessions: gauge("sessions_open", "WebTransport sessions on fan-out paths open now."),
	subs: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: ns, Subsystem: sub, Name: "subscriptions",
		Help: "Subscriptions open now, by transport (webtransport, sse).",
	}, []string{"transport"}),
	channels:  gauge("channels", "Channels with an upstream subscription (subscribed, or lingering after the last subscriber left)."),
	upstreams: gauge("upstream_connections", "Upstream event streams open now: one per channel while the origin serves it."),
	connects: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: ns, Subsystem: sub, Name: "upstream_connects_total",
		Help: "Upstream subscription attempts, by result (ok, error, unknown_channel: 404 or 410, stopped: 204).",
	}, []string{"result"}),
	reconnects: prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: ns, Subsystem: sub, Name: "upstream_reconnects_total",
		Help: "Upstream subscriptions that ended or failed and are retried after a backoff.",
	}),
	received: prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: ns, Subsystem: sub, Name: "events_received_total",
		Help: "Events received from origins and fanned out.",
	}),
	delivered: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: ns, Subsystem: sub, Name: "events_delivered_total",
		Help: "Events written to subscribers, by transport (stream, datagram, sse).",
	}, []string{"transport"}),
	missed: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: ns, Subsystem: sub, Name: "events_missed_total",
		Help: "Events dropped for slow subscribers whose queue was full (they are told the count), by transport (webtransport, sse).",
	}, []string{"transport"}),
	dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: ns, Subsystem: sub, Name: "events_dropped_total",
		Help: "Origin events not fanned out, by reason (too_large: over max_event_size; duplicate: an id seen lately, sent again after a reconnect).",
	}, []string{"reason"}),
	closed: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: ns, Subsystem: sub, Name: "subscriptions_ended_total",
		Help: "Subscriptions the edge ended, by reason (overflow, unknown_channel, failed).",
	}, []string{"reason"}),
	errors: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: ns, Subsystem: sub, Name: "control_errors_total",
		Help: "Errors answered to clients' control frames and requests, by code.",
	}, []string{"code"}),
	delay: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: ns, Subsystem: sub, Name: "delivery_delay_seconds",
		Help:    "Time from reading an event from the origin to writing it to a subscriber, by transport (stream, datagram, sse).",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	}, []string{"transport"}),
	roundWrites: prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: ns, Subsystem: sub, Name: "connection_round_writes",
		Help:    "Events a QUIC connection's writer wrote in one round (one per subscription of the connection that had one queued, more when it had a backlog); a round's writes share packets.",
		Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256},
	}),
}

const ns, sub = "lastmile", "fanout"

func gauge(name, help string) prometheus.Gauge {
	return prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: name, Help: help})
}

func collectors() []prometheus.Collector {
	m := metrics
	return []prometheus.Collector{m.sessions, m.subs, m.channels, m.upstreams, m.connects, m.reconnects,
		m.received, m.delivered, m.missed, m.dropped, m.closed, m.errors, m.delay, m.roundWrites}
}
