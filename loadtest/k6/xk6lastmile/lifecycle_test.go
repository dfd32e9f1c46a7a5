package xk6lastmile_test

import "testing"

func TestConnectionLifecycle(t *testing.T) {
	e := startEdge(t)
	for _, tc := range []struct {
		name string
		args []string
		want float64 // QUIC handshakes at the edge: 2 VUs x 4 iterations x 2 requests
	}{
		{"kept for the VU", nil, 2},
		{"noVUConnectionReuse: one per iteration", []string{"--no-vu-connection-reuse"}, 8},
		{"noConnectionReuse: one per request", []string{"--no-connection-reuse"}, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := e.mustMetric(t, "lastmile_quic_connections_total")
			s := e.run(t, "connections.js", tc.args...)
			if c := s.Metrics["checks"]; c.Passes != 16 || c.Fails != 0 {
				t.Errorf("checks: %d passed, %d failed; want 16, 0", c.Passes, c.Fails)
			}
			if got := e.mustMetric(t, "lastmile_quic_connections_total") - before; got != tc.want {
				t.Errorf("edge accepted %v connections, want %v", got, tc.want)
			}
			// Closed by k6 at the end, not left to the edge's idle timeout.
			e.eventually(t, "lastmile_quic_connections_open", 0)
		})
	}
}

func TestSessionLifecycle(t *testing.T) {
	e := startEdge(t)
	for _, closeAt := range []string{"iteration", "vu"} {
		t.Run(closeAt, func(t *testing.T) {
			s := e.run(t, "sessions.js", "-e", "CLOSE_AT="+closeAt)
			// 3 iterations x 3 checks, each asserting the open-session gauge.
			if c := s.Metrics["checks"]; c.Passes != 9 || c.Fails != 0 {
				t.Errorf("checks: %d passed, %d failed; want 9, 0", c.Passes, c.Fails)
			}
			e.eventually(t, "lastmile_webtransport_sessions_open", 0)
			e.eventually(t, "lastmile_quic_connections_open", 0)
		})
	}
}
