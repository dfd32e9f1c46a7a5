package httpcache

import (
	"net/http"
	"reflect"
	"testing"
)

func TestParseCacheControl(t *testing.T) {
	d := parseCacheControl([]string{`public, max-age=60, S-MaxAge="120"`, `stale-while-revalidate=30,no-cache="Set-Cookie, X-Debug"`})
	if !d.public || d.maxAge != 60 || d.sMaxAge != 120 || d.staleWhileRevalidate != 30 {
		t.Fatalf("%+v", d)
	}
	if d.noCache || !reflect.DeepEqual(d.noCacheFields, []string{"set-cookie", "x-debug"}) {
		t.Fatalf("qualified no-cache: %+v", d)
	}
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"max-age=abc", 0}, {"max-age=-1", 0}, {"max-age", 0}, {"max-age=99999999999999", maxDelta},
		{"max-age=10, max-age=20", 0}, {"max-age=10, max-age=10", 10}, {"", -1},
	} {
		if got := parseCacheControl([]string{tc.in}).maxAge; got != tc.want {
			t.Errorf("%q: max-age %d, want %d", tc.in, got, tc.want)
		}
	}
	r := parseCacheControl([]string{"max-stale, min-fresh=5, only-if-cached, no-cache, private"})
	if !r.maxStaleAny || r.minFresh != 5 || !r.onlyIfCached || !r.noCache || !r.private {
		t.Fatalf("%+v", r)
	}
}

func TestParseVary(t *testing.T) {
	names, star := parseVary(http.Header{"Vary": {"Accept-Encoding, accept-language", "Accept-Encoding"}})
	if star || !reflect.DeepEqual(names, []string{"accept-encoding", "accept-language"}) {
		t.Fatalf("%v %v", names, star)
	}
	if _, star := parseVary(http.Header{"Vary": {"Origin, *"}}); !star {
		t.Fatal("Vary * not seen")
	}
}

// The parsers take any bytes without panicking, and what they return is
// within the RFC's bounds.
func FuzzParseCacheControl(f *testing.F) {
	for _, s := range []string{"max-age=60", `no-cache="a,b"`, `private="x\"y"`, "max-stale", ",,,=", `"`, "s-maxage=1e9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := parseCacheControl([]string{s})
		for _, v := range []int64{d.maxAge, d.sMaxAge, d.maxStale, d.minFresh, d.staleWhileRevalidate, d.staleIfError} {
			if v < -1 || v > maxDelta {
				t.Fatalf("%q: delta %d out of range", s, v)
			}
		}
		for _, n := range append(d.noCacheFields, d.privateFields...) {
			if !validToken(n) {
				t.Fatalf("%q: field name %q is not a token", s, n)
			}
		}
	})
}

func FuzzParseVary(f *testing.F) {
	for _, s := range []string{"Accept-Encoding", "*", "a, b ,, c", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		names, _ := parseVary(http.Header{"Vary": {s}})
		seen := map[string]bool{}
		for _, n := range names {
			if !validToken(n) || seen[n] {
				t.Fatalf("%q: bad or repeated name %q", s, n)
			}
			seen[n] = true
		}
	})
}
