package httpcache

import (
	"net/http"
	"strings"
	"testing"
)

// A user request makes at most one origin request: when the revalidation
// of a stale entry brings a response that cannot be stored or shared, the
// client that asked gets that response, not a second fetch of its own
// (RFC 9111 section 4.3.3). The entries are stale as stored (Age beyond
// max-age), so no time has to pass.
func TestRevalidationAnswerGoesToItsClient(t *testing.T) {
	for name, second := range map[string][]string{
		"no freshness": nil,
		"no-store":     {"Cache-Control", "no-store"},
		"private":      {"Cache-Control", "private, max-age=60"},
		"set-cookie":   {"Cache-Control", "max-age=60", "Set-Cookie", "a=b"},
	} {
		t.Run(name, func(t *testing.T) {
			o := newOrigin(t)
			o.handle("/r", func(w http.ResponseWriter, r *http.Request) {
				n := o.count("/r")
				if n == 1 {
					w.Header().Set("Cache-Control", "max-age=60")
					w.Header().Set("Age", "120")
				}
				for i := 0; n > 1 && i+1 < len(second); i += 2 {
					w.Header().Add(second[i], second[i+1])
				}
				w.Write([]byte("response " + strings.Repeat("#", int(n))))
			})
			e := startCache(t, o, "")
			e.get(t, "/r")
			r := e.get(t, "/r")
			if r.body != "response ##" || o.count("/r") != 2 {
				t.Fatalf("got %q; origin saw %d requests for 2, want 2", r.body, o.count("/r"))
			}
			if !strings.Contains(r.cacheStatus(), "fwd=stale") {
				t.Fatalf("Cache-Status %q", r.cacheStatus())
			}
		})
	}
}

// With stale-if-error in force, an error answering a revalidation neither
// reaches the client nor replaces the stored response (RFC 5861 section
// 4), even when it carries freshness of its own.
func TestRevalidationErrorKeepsStaleEntry(t *testing.T) {
	o := newOrigin(t)
	o.handle("/e", func(w http.ResponseWriter, r *http.Request) {
		if o.count("/e") == 1 {
			w.Header().Set("Cache-Control", "max-age=60, stale-if-error=600")
			w.Header().Set("Age", "120")
			w.Write([]byte("good"))
			return
		}
		w.Header().Set("Cache-Control", "max-age=60")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("down"))
	})
	e := startCache(t, o, "")
	e.get(t, "/e")
	for i := 2; i <= 3; i++ {
		r := e.get(t, "/e")
		if r.status != http.StatusOK || r.body != "good" || !strings.Contains(r.cacheStatus(), "stale-if-error") {
			t.Fatalf("request %d: %d %q, Cache-Status %q", i, r.status, r.body, r.cacheStatus())
		}
		if o.count("/e") != int64(i) {
			t.Fatalf("request %d: origin saw %d requests", i, o.count("/e"))
		}
	}
}

// A 304 updates the stored header fields except those describing the
// stored body: its coding, digest, range and validator (RFC 9111 section
// 3.2), or the old bytes would be served under the new description.
func Test304KeepsBodyFields(t *testing.T) {
	o := newOrigin(t)
	versions := map[int64]map[string]string{
		1: {"Age": "120", "ETag": `"one"`, "Content-Encoding": "x-first", "Content-MD5": "first", "Content-Range": "bytes 0-3/4", "X-Version": "1"},
		2: {"ETag": `"two"`, "Content-Encoding": "x-second", "Content-MD5": "second", "Content-Range": "bytes 0-9/10", "X-Version": "2"},
	}
	o.handle("/b", func(w http.ResponseWriter, r *http.Request) {
		n := o.count("/b")
		w.Header().Set("Cache-Control", "max-age=60")
		for k, v := range versions[min(n, 2)] {
			w.Header().Set(k, v)
		}
		if n == 1 {
			w.Write([]byte("body"))
			return
		}
		w.WriteHeader(http.StatusNotModified)
	})
	e := startCache(t, o, "")
	e.get(t, "/b")
	for _, r := range []result{e.get(t, "/b"), e.get(t, "/b")} {
		if r.body != "body" || r.header.Get("X-Version") != "2" {
			t.Fatalf("body %q, X-Version %q: the 304 did not update the entry", r.body, r.header.Get("X-Version"))
		}
		for f, want := range map[string]string{"ETag": `"one"`, "Content-Encoding": "x-first", "Content-MD5": "first", "Content-Range": "bytes 0-3/4"} {
			if got := r.header.Get(f); got != want {
				t.Errorf("%s %q, want the stored %q", f, got, want)
			}
		}
	}
	if o.count("/b") != 2 {
		t.Fatalf("origin saw %d requests, want 2 (the refreshed entry is fresh)", o.count("/b"))
	}
}
