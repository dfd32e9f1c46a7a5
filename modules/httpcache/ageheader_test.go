package httpcache

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// An Age the cache cannot trust makes the response stale, not fresh: a
// list, two field lines, a sign, a fraction, a parameter or garbage count
// as the greatest age (RFC 9111 sections 5.1 and 1.2.2). One line of
// digits is the age.
func TestAgeParsing(t *testing.T) {
	o := newOrigin(t)
	cases := map[string]struct {
		lines []string
		fresh bool
	}{
		"/valid":        {[]string{"10"}, true},
		"/valid-space":  {[]string{" 10 "}, true},
		"/nonnumeric":   {[]string{"abc"}, false},
		"/negative":     {[]string{"-1"}, false},
		"/float":        {[]string{"1.5"}, false},
		"/list":         {[]string{"0, 0"}, false},
		"/two-lines":    {[]string{"0", "0"}, false},
		"/parameter":    {[]string{"0; x=1"}, false},
		"/empty":        {[]string{""}, false},
		"/huge":         {[]string{"99999999999999999999"}, false},
		"/old":          {[]string{"120"}, false},
		"/old-fraction": {[]string{"120.0"}, false},
	}
	for path, c := range cases {
		o.handle(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Cache-Control", "max-age=60")
			w.Header()["Age"] = c.lines
			w.Write([]byte(path))
		})
	}
	e := startCache(t, o, "")
	for path, c := range cases {
		e.get(t, path)
		r := e.get(t, path)
		if c.fresh {
			wantHit(t, r)
		} else if o.count(path) != 2 {
			t.Errorf("Age %q: served from the store (Cache-Status %q), want stale", c.lines, r.cacheStatus())
		}
	}
}

// Any Age parses to an age within bounds: its value for one line of
// digits, the greatest age otherwise.
func FuzzAgeHeader(f *testing.F) {
	for _, s := range []string{"0", "10", "-1", "1.5", "0, 0", "0; x=1", "", "99999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		age := ageHeader(http.Header{"Age": {s}})
		if age < 0 || age > maxDelta*time.Second {
			t.Fatalf("%q: age %v out of range", s, age)
		}
		v := strings.TrimSpace(s)
		digits := v != "" && strings.Trim(v, "0123456789") == ""
		if !digits && age != maxDelta*time.Second {
			t.Fatalf("%q: untrustworthy Age read as %v, not the greatest age", s, age)
		}
	})
}
