package main

import (
	"context"
	"crypto/tls"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// A client that rejects the certificate leaves a failed handshake in the
// metrics; a good one an ok handshake, and the open gauge follows both.
func TestHandshakeMetrics(t *testing.T) {
	e := startEdge(t)
	// Counters are process-wide: earlier tests' edges counted too.
	failed0 := e.metric(t, `lastmile_quic_handshakes_total{result="failed"}`)
	ok0 := e.metric(t, `lastmile_quic_handshakes_total{result="ok"}`)
	total0 := e.metric(t, `lastmile_quic_connections_total`)
	waitMetric(t, e, `lastmile_quic_connections_open`, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// No RootCAs: the edge's private certificate is refused by the client.
	_, err := quic.DialAddr(ctx, e.addr(), &tls.Config{ServerName: "localhost", NextProtos: []string{http3.NextProtoH3}}, nil)
	if err == nil {
		t.Fatal("handshake with an untrusted certificate succeeded")
	}
	good := e.tlsConfig()
	good.NextProtos = []string{http3.NextProtoH3}
	conn, err := quic.DialAddr(ctx, e.addr(), good, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitMetric(t, e, `lastmile_quic_handshakes_total{result="failed"}`, failed0+1)
	waitMetric(t, e, `lastmile_quic_handshakes_total{result="ok"}`, ok0+1)
	waitMetric(t, e, `lastmile_quic_connections_open`, 1)
	conn.CloseWithError(0, "")
	waitMetric(t, e, `lastmile_quic_connections_open`, 0)
	if got := e.metric(t, `lastmile_quic_connections_total`); got != total0+2 {
		t.Errorf("connections_total = %v, want %v", got, total0+2)
	}
}

// waitMetric waits up to 3 s for series to reach want: the server counts
// after the client has moved on.
func waitMetric(t *testing.T, e *testEdge, series string, want float64) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		got := e.metric(t, series)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s = %v, want %v", series, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
