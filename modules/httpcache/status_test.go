package httpcache

import (
	"net/http"
	"testing"
	"time"
)

// Any final status may be stored when the origin gives it explicit
// freshness (RFC 9111 section 3), or heuristically when it is public
// (section 4.2.2); must-understand limits storing to the statuses this
// cache knows (section 5.2.2.3); partial content is never stored.
func TestStatusesStored(t *testing.T) {
	o := newOrigin(t)
	lm := time.Now().Add(-24 * time.Hour).UTC().Format(http.TimeFormat)
	cases := map[string]struct {
		status int
		header []string
		stored bool
	}{
		"/299":                  {299, []string{"Cache-Control", "max-age=60"}, true},
		"/400":                  {400, []string{"Cache-Control", "max-age=60"}, true},
		"/503":                  {503, []string{"Cache-Control", "max-age=60"}, true},
		"/599":                  {599, []string{"Cache-Control", "max-age=60"}, true},
		"/599-public-heuristic": {599, []string{"Cache-Control", "public", "Last-Modified", lm}, true},
		"/599-heuristic":        {599, []string{"Last-Modified", lm}, false},
		"/599-validator-only":   {599, []string{"ETag", `"v"`}, false},
		"/599-must-understand":  {599, []string{"Cache-Control", "max-age=60, must-understand"}, false},
		"/404-must-understand":  {404, []string{"Cache-Control", "max-age=60, must-understand"}, true},
		"/206":                  {206, []string{"Cache-Control", "max-age=60", "Content-Range", "bytes 0-3/10"}, false},
	}
	for path, c := range cases {
		o.respond(path, c.status, c.header...)
	}
	e := startCache(t, o, "")
	for path, c := range cases {
		first := e.get(t, path)
		r := e.get(t, path)
		if first.status != c.status || r.status != c.status {
			t.Errorf("%s: statuses %d, %d, want %d", path, first.status, r.status, c.status)
		}
		if c.stored {
			wantHit(t, r)
		} else {
			wantMiss(t, r)
		}
	}
}

// A cache identifier is written as a token when it is one, else as a
// structured-field string (RFC 9211 section 2).
func TestStatusItem(t *testing.T) {
	for name, want := range map[string]string{
		"lastmile": "lastmile", "edge-fra-1": "edge-fra-1", "cdn.example.net:443": "cdn.example.net:443",
		"1edge": `"1edge"`, "edge 1": `"edge 1"`, `a"b\c`: `"a\"b\\c"`,
	} {
		if got := statusItem(name); got != want {
			t.Errorf("statusItem(%q) = %s, want %s", name, got, want)
		}
	}
}
