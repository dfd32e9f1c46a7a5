package httpcache

import (
	"testing"
)

// The edge announces itself in Surrogate-Capability and obeys the
// Surrogate-Control directives targeted at it ("max-age=60;lastmile"), but
// not those targeted at another surrogate (W3C Edge Architecture 1.0).
func TestSurrogateControlTargets(t *testing.T) {
	o := newOrigin(t)
	o.respond("/mine", 200, "Cache-Control", "no-store", "Surrogate-Control", "max-age=60;lastmile")
	o.respond("/mine-case", 200, "Surrogate-Control", `content="ESI/1.0", max-age=60;LastMile`)
	o.respond("/other", 200, "Surrogate-Control", "max-age=60;other")
	o.respond("/other-no-store", 200, "Cache-Control", "max-age=60", "Surrogate-Control", "no-store;other")
	e := startCache(t, o, "")
	for path, stored := range map[string]bool{"/mine": true, "/mine-case": true, "/other": false, "/other-no-store": true} {
		e.get(t, path)
		if got := o.last(path).Header.Get("Surrogate-Capability"); got != surrogateCapability {
			t.Errorf("%s: the origin saw Surrogate-Capability %q", path, got)
		}
		if r := e.get(t, path); stored {
			wantHit(t, r)
		} else {
			wantMiss(t, r)
		}
	}
}
