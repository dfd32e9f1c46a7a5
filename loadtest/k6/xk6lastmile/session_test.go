package xk6lastmile_test

import "testing"

func TestSessionAPI(t *testing.T) {
	e := startEdge(t)
	s := e.run(t, "session-api.js")
	if c := s.Metrics["checks"]; c.Passes != 10 || c.Fails != 0 {
		t.Errorf("checks: %d passed, %d failed; want 10, 0", c.Passes, c.Fails)
	}
	// Three sessions (the API's, the refused one, the echo's), two
	// streams opened by each of the open ones, a datagram or more each way
	// on both (the echo resends one it does not get back in 300 ms).
	for name, want := range map[string]float64{
		"lastmile_wt_sessions": 3, "lastmile_wt_streams": 4,
	} {
		if got := s.Metrics[name].Count; got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	for _, name := range []string{"lastmile_wt_datagrams_sent", "lastmile_wt_datagrams_received"} {
		if got := s.Metrics[name].Count; got < 2 {
			t.Errorf("%s = %v, want at least 2", name, got)
		}
	}
	if c := s.Metrics["lastmile_wt_failed"]; c.Passes != 1 || c.Fails != 2 {
		t.Errorf("lastmile_wt_failed: %d failed sessions of %d; want 1 of 3", c.Passes, c.Passes+c.Fails)
	}
	e.eventually(t, "lastmile_webtransport_sessions_open", 0)
}
