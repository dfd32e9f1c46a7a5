package httpcache

import (
	"reflect"
	"strings"
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

// Any Surrogate-Control parses without panicking, within the RFC's
// bounds, and one without targets reads as Cache-Control would.
func FuzzParseSurrogateControl(f *testing.F) {
	for _, s := range []string{"max-age=60;lastmile", `content="ESI/1.0;x", max-age=1;other`, ";", "no-store;", `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := parseSurrogateControl([]string{s})
		for _, v := range []int64{d.maxAge, d.sMaxAge, d.staleWhileRevalidate, d.staleIfError} {
			if v < -1 || v > maxDelta {
				t.Fatalf("%q: delta %d out of range", s, v)
			}
		}
		if !strings.ContainsAny(s, `;"`) && ok && !reflect.DeepEqual(d, parseCacheControl([]string{s})) {
			t.Fatalf("%q: untargeted directives read otherwise than Cache-Control", s)
		}
	})
}
