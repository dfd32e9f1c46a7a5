package originlink

import (
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lastmile-edge/lastmile/internal/promreg"
)

// poolSets are the transports of the running configs, for the metrics
// collector and the admin view.
var poolSets sync.Map // *Transport -> struct{}

func registerPoolSet(t *Transport)   { poolSets.Store(t, struct{}{}) }
func unregisterPoolSet(t *Transport) { poolSets.Delete(t) }

// snapshot is every live pool's state, read at scrape time.
func snapshot() []OriginView {
	var out []OriginView
	for _, p := range livePools() {
		out = append(out, p.view())
	}
	return out
}

// livePools are the pools of every running config's transports.
func livePools() []*pool {
	var out []*pool
	poolSets.Range(func(k, _ any) bool {
		t := k.(*Transport)
		t.pools.mu.Lock()
		for _, p := range t.pools.pools {
			out = append(out, p)
		}
		t.pools.mu.Unlock()
		return true
	})
	return out
}

var (
	descLabels = []string{"origin", "slot"}
	descs      = struct {
		rtt, rttVar, cwnd, retrans, delivery, inFlight, ping, poolSize, dials, dialFailures *prometheus.Desc
	}{
		rtt:          prometheus.NewDesc("lastmile_origin_link_rtt_seconds", "Smoothed RTT of an origin connection (TCP_INFO).", descLabels, nil),
		rttVar:       prometheus.NewDesc("lastmile_origin_link_rtt_variance_seconds", "RTT variance of an origin connection (TCP_INFO).", descLabels, nil),
		cwnd:         prometheus.NewDesc("lastmile_origin_link_cwnd_packets", "Congestion window of an origin connection (TCP_INFO).", descLabels, nil),
		retrans:      prometheus.NewDesc("lastmile_origin_link_retransmits_total", "Segments retransmitted on an origin connection (TCP_INFO).", descLabels, nil),
		delivery:     prometheus.NewDesc("lastmile_origin_link_delivery_rate_bytes", "Delivery rate of an origin connection, bytes/s (TCP_INFO).", descLabels, nil),
		inFlight:     prometheus.NewDesc("lastmile_origin_link_bytes_in_flight", "Unacknowledged bytes on an origin connection (TCP_INFO).", descLabels, nil),
		ping:         prometheus.NewDesc("lastmile_origin_link_ping_rtt_seconds", "Last HTTP/2 PING round trip on an origin connection.", descLabels, nil),
		poolSize:     prometheus.NewDesc("lastmile_origin_pool_connections", "Open connections in an origin's warm pool.", []string{"origin"}, nil),
		dials:        prometheus.NewDesc("lastmile_origin_dials_total", "Connections dialled to an origin.", []string{"origin"}, nil),
		dialFailures: prometheus.NewDesc("lastmile_origin_dial_failures_total", "Failed dials to an origin.", []string{"origin"}, nil),
	}
)

// collector turns snapshots into metrics; its series are bounded by the
// configured origins and pool sizes.
type collector struct{}

func (collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descs.rtt, descs.rttVar, descs.cwnd, descs.retrans, descs.delivery, descs.inFlight, descs.ping, descs.poolSize, descs.dials, descs.dialFailures} {
		ch <- d
	}
}

func (collector) Collect(ch chan<- prometheus.Metric) {
	for _, o := range snapshot() {
		ch <- prometheus.MustNewConstMetric(descs.poolSize, prometheus.GaugeValue, float64(len(o.Links)), o.Origin)
		ch <- prometheus.MustNewConstMetric(descs.dials, prometheus.CounterValue, float64(o.Dials), o.Origin)
		ch <- prometheus.MustNewConstMetric(descs.dialFailures, prometheus.CounterValue, float64(o.DialFailures), o.Origin)
		for _, l := range o.Links {
			slot := strconv.Itoa(l.Slot)
			g := func(d *prometheus.Desc, v float64) {
				ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, o.Origin, slot)
			}
			if l.QUIC != nil {
				g(descs.rtt, l.QUIC.SmoothedRTT.Seconds())
				g(descs.rttVar, l.QUIC.RTTVar.Seconds())
				g(descs.ping, l.PingRTT.Seconds())
				continue
			}
			g(descs.rtt, l.TCP.RTT.Seconds())
			g(descs.rttVar, l.TCP.RTTVar.Seconds())
			g(descs.cwnd, float64(l.TCP.CwndPackets))
			g(descs.delivery, float64(l.TCP.DeliveryRateBytes))
			g(descs.inFlight, float64(l.TCP.BytesInFlight))
			g(descs.ping, l.PingRTT.Seconds())
			ch <- prometheus.MustNewConstMetric(descs.retrans, prometheus.CounterValue, float64(l.TCP.Retransmits), o.Origin, slot)
		}
	}
}

func registerMetrics(reg prometheus.Registerer) error {
	return promreg.Register(reg, theCollector)
}

var theCollector = collector{}
