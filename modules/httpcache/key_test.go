package httpcache

import (
	"net/http"
	"net/url"
	"testing"
)

func TestCacheKeyOptions(t *testing.T) {
	o := newOrigin(t)
	o.respond("/k", 200, "Cache-Control", "max-age=60")
	e := startCache(t, o, "key {\n\t\t\tignore_query utm_source fbclid\n\t\t\tsort_query\n\t\t\theaders X-Device\n\t\t\tcookies lang\n\t\t}")
	e.get(t, "/k?b=2&a=1&utm_source=mail")
	wantHit(t, e.get(t, "/k?a=1&b=2"))
	wantHit(t, e.get(t, "/k?fbclid=x&a=1&b=2"))
	wantMiss(t, e.get(t, "/k?a=1&b=3"))
	wantMiss(t, e.get(t, "/k?a=1&b=2", "X-Device", "mobile"))
	wantHit(t, e.get(t, "/k?a=1&b=2", "X-Device", "mobile"))
	// A keyed cookie: stored from a request that sends only keyed cookies
	// (they identify no one), served to any request with the same value.
	wantMiss(t, e.get(t, "/k?a=1&b=2", "Cookie", "lang=de"))
	wantHit(t, e.get(t, "/k?a=1&b=2", "Cookie", "lang=de; session=y"))
	// Another cookie is a credential: max-age alone is no permission to
	// share what such a request got.
	wantMiss(t, e.get(t, "/k?a=1&b=2", "Cookie", "lang=fr; session=x"))
	wantMiss(t, e.get(t, "/k?a=1&b=2", "Cookie", "lang=fr"))
}

// Key parts are length-prefixed: parts that would concatenate alike give
// different keys.
func TestCacheKeyUnambiguous(t *testing.T) {
	k := &KeyConfig{Headers: []string{"X-A", "X-B"}}
	mk := func(host, path, query string, hdr http.Header) string {
		r := &http.Request{Method: http.MethodGet, Host: host, URL: &url.URL{Path: path, RawQuery: query}, Header: hdr}
		return k.primaryKey(r)
	}
	pairs := [][2]string{
		{mk("ab", "/c", "", nil), mk("a", "b/c", "", nil)},
		{mk("h", "/p", "q=1", nil), mk("h", "/p?q=1", "", nil)},
		{mk("h", "/", "", http.Header{"X-A": {"1,2"}}), mk("h", "/", "", http.Header{"X-A": {"1"}, "X-B": {"2"}})},
		{mk("h", "/", "", http.Header{"X-A": {"12"}}), mk("h", "/", "", http.Header{"X-A": {"1"}, "X-B": {"2"}})},
	}
	for _, p := range pairs {
		if p[0] == p[1] {
			t.Errorf("ambiguous key %q", p[0])
		}
	}
	long := string(make([]byte, 100000))
	if got := mk("h", "/"+long, "", nil); len(got) < 100000 {
		t.Error("key truncated")
	}
}
