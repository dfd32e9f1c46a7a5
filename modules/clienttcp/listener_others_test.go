//go:build !linux

package clienttcp

import "testing"

// Outside Linux the default configuration loads, keeps the system's
// congestion control and serves connections untuned.
func TestDefaultsServeUntunedOutsideLinux(t *testing.T) {
	lw := &ListenerWrapper{}
	c := accepted(t, lw, bare)
	if lw.CongestionControl != "" {
		t.Errorf("congestion control %q, want the system default", lw.CongestionControl)
	}
	if _, err := c.Write([]byte("served")); err != nil {
		t.Fatal(err)
	}
}
