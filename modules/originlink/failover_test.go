package originlink

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// An idle link is replaced before the origin's idle timeout would close
// it, with no request failing meanwhile.
func TestIdleLinksAreReplaced(t *testing.T) {
	o := startOrigin(t, protoHandler)
	e := startEdge(t, o.addr, "pool_size 2\n\t\t\tping_interval 100ms\n\t\t\treplace_idle 400ms")
	waitFor(t, "idle links replaced", func() bool { return o.newConn.Load() >= 4 })
	v := e.linksUp(t, 2)
	for _, l := range v[0].Links {
		if l.Age > time.Second {
			t.Fatalf("link %d is %v old", l.Slot, l.Age)
		}
	}
	if code, _ := get(t, e.base+"/"); code != 200 {
		t.Fatal(code)
	}
}

// With reverse_proxy's active health checks, a dead origin is noticed in
// a second and traffic moves to the live one; while both are down,
// requests fail at once with 502 instead of hanging.
func TestFailoverWithHealthChecks(t *testing.T) {
	a := startOrigin(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "a") })
	b := startOrigin(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "b") })
	e := startSite(t, fmt.Sprintf(`reverse_proxy %s %s {
		lb_policy first
		health_uri /health
		health_interval 200ms
		health_timeout 500ms
		transport origin_link {
			warm %s %s
			pool_size 2
			dial_timeout 500ms
		}
	}`, a.addr, b.addr, a.addr, b.addr))
	base := e.base
	if _, body := get(t, base+"/"); body != "a" {
		t.Fatalf("first choice: %q", body)
	}
	a.srv.Close()
	start := time.Now()
	waitFor(t, "traffic on b", func() bool {
		_, body := get(t, base+"/")
		return body == "b"
	})
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("failover took %v", d)
	}
	b.srv.Close()
	waitFor(t, "both down noticed", func() bool {
		code, _ := get(t, base+"/")
		return code == http.StatusServiceUnavailable || code == http.StatusBadGateway
	})
	start = time.Now()
	code, body := get(t, base+"/")
	if (code != http.StatusBadGateway && code != http.StatusServiceUnavailable) || time.Since(start) > time.Second {
		t.Fatalf("both down: %d %q after %v", code, strings.TrimSpace(body), time.Since(start))
	}
}
