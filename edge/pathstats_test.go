package main

import (
	"fmt"
	"testing"
)

// An ended QUIC connection leaves its path in the metrics: its RTT, the
// packets the edge sent and lost, and (20 packets or more) its loss ratio.
func TestEndedConnectionPathMetrics(t *testing.T) {
	e := startEdge(t)
	// Process-wide series: earlier tests' edges counted too.
	rtt0 := e.metric(t, `lastmile_quic_client_rtt_seconds_count`)
	loss0 := e.metric(t, `lastmile_quic_client_loss_ratio_count`)
	lossLow0 := e.metric(t, `lastmile_quic_client_loss_ratio_bucket{le="0.001"}`)
	sent0 := e.metric(t, `lastmile_quic_packets_sent_total`)
	c, tr := e.h3Client(t)
	for i := range 15 {
		get(t, c, e.URL(fmt.Sprintf("/page/%d", i)))
	}
	tr.Close()
	waitMetric(t, e, `lastmile_quic_client_rtt_seconds_count`, rtt0+1)
	waitMetric(t, e, `lastmile_quic_client_loss_ratio_count`, loss0+1)
	// Loopback loses nothing.
	waitMetric(t, e, `lastmile_quic_client_loss_ratio_bucket{le="0.001"}`, lossLow0+1)
	if sent := e.metric(t, `lastmile_quic_packets_sent_total`) - sent0; sent < 20 {
		t.Errorf("packets_sent_total grew by %v for 15 pages, want at least 20", sent)
	}
}
