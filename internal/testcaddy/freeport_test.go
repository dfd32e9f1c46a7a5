package testcaddy

import "testing"

// Ports handed out in one process never repeat, whichever function gave
// them: a test's site and admin endpoint on one port (both bound, Caddy
// listens with SO_REUSEPORT) answered each other's requests.
func TestFreePortsNeverRepeat(t *testing.T) {
	seen := map[string]bool{}
	for i := range 300 {
		p := FreePort(t)
		if i%3 == 0 {
			p = FreeTCPAndUDPPort(t)
		}
		if seen[p] {
			t.Fatalf("port %s returned twice", p)
		}
		seen[p] = true
	}
}
