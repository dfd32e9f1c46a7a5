package httpcache

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"
)

// Whether the edge stores a response (RFC 9111 section 3), and what it
// keeps from it.
func TestStoreDecision(t *testing.T) {
	clock := &fakeClock{now: rfcEpoch}
	h := rfcHandler(clock)
	lastModified := rfcHTTPDate(clock.Now().Add(-5 * time.Hour))
	bearer := []string{"Authorization", "Bearer alice"}
	for _, tc := range []struct {
		name, rfc   string
		status      int
		header      []string
		request     []string // request header fields
		want        string   // "stored", or the reason it is not
		wantNoCache bool
		wantStrip   []string
	}{
		{"explicit freshness", "9111 §3", 200, []string{"Cache-Control", "max-age=60"}, nil, "stored", false, nil},
		{"heuristic freshness", "9111 §3, §4.2.2", 200, []string{"Last-Modified", lastModified}, nil, "stored", false, nil},
		{"a validator alone: stored, validated on use", "9111 §3, §4.3", 200, []string{"ETag", `"v1"`}, nil, "stored", false, nil},
		{"no-store", "9111 §5.2.2.5", 200, []string{"Cache-Control", "no-store, max-age=60"}, nil, "no-store", false, nil},
		{"private: not in a shared cache", "9111 §5.2.2.7", 200, []string{"Cache-Control", "private, max-age=60"}, nil, "private", false, nil},
		{"qualified private: stored without the fields", "9111 §5.2.2.7", 200,
			[]string{"Cache-Control", `max-age=60, private="X-User"`}, nil, "stored", false, []string{"x-user"}},
		{"no-cache: stored, validated before each use", "9111 §5.2.2.4", 200,
			[]string{"Cache-Control", "no-cache", "ETag", `"v1"`}, nil, "stored", true, nil},
		{"qualified no-cache: the fields are never served from the store", "9111 §5.2.2.4", 200,
			[]string{"Cache-Control", `max-age=60, no-cache="X-Debug"`}, nil, "stored", false, []string{"x-debug"}},
		{"CDN-Cache-Control no-store wins over Cache-Control", "9213 §2.1", 200,
			[]string{"Cache-Control", "max-age=60", "Cdn-Cache-Control", "no-store"}, nil, "no-store", false, nil},
		{"CDN-Cache-Control stores what Cache-Control keeps from browsers", "9213 §2.1", 200,
			[]string{"Cache-Control", "no-store", "Cdn-Cache-Control", "max-age=60"}, nil, "stored", false, nil},
		{"Vary: * never matches a request", "9111 §4.1", 200, []string{"Cache-Control", "max-age=60", "Vary", "Origin, *"}, nil, "vary-star", false, nil},
		{"partial content: no range support", "9111 §3.3", 206, []string{"Cache-Control", "max-age=60"}, nil, "status", false, nil},
		{"a 302 with explicit freshness", "9111 §3", 302, []string{"Cache-Control", "max-age=60"}, nil, "stored", false, nil},
		{"Authorization: not without shared permission", "9111 §3.5", 200, []string{"Cache-Control", "max-age=60"}, bearer, "authorization", false, nil},
		{"Authorization with s-maxage", "9111 §3.5", 200, []string{"Cache-Control", "s-maxage=60"}, bearer, "stored", false, nil},
		{"Authorization with public", "9111 §3.5", 200, []string{"Cache-Control", "public, max-age=60"}, bearer, "stored", false, nil},
		{"Authorization with must-revalidate", "9111 §3.5", 200, []string{"Cache-Control", "max-age=60, must-revalidate"}, bearer, "stored", false, nil},
		{"Set-Cookie: never stored (intended deviation)", "9111 §3 allows it; the cookie is one user's", 200,
			[]string{"Cache-Control", "max-age=60", "Set-Cookie", "s=1"}, nil, "set-cookie", false, nil},
		{"nothing to reuse: no freshness, no validator", "9111 §3 (MAY store)", 200, nil, nil, "no-freshness", false, nil},
		{"request no-store", "9111 §5.2.1.5", 200, []string{"Cache-Control", "max-age=60"},
			[]string{"Cache-Control", "max-age=0, no-store"}, "request-no-store", false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "http://edge.example/x", nil)
			for i := 0; i+1 < len(tc.request); i += 2 {
				r.Header.Add(tc.request[i], tc.request[i+1])
			}
			p := computePolicy(tc.status, rfcResponseHeader(clock.Now(), tc.header...), h.policyConfig(r))
			got := p.reason
			if p.storable {
				got = "stored"
			}
			if got != tc.want || p.noCache != tc.wantNoCache || !slices.Equal(p.stripFields, tc.wantStrip) {
				t.Errorf("RFC %s: %s (no-cache %v, stripped %q), want %s (no-cache %v, stripped %q)",
					tc.rfc, got, p.noCache, p.stripFields, tc.want, tc.wantNoCache, tc.wantStrip)
			}
		})
	}
}

// A stored response's header fields reach the store as the origin sent
// them, less the edge's own fields (RFC 9213 section 2.1: CDN-Cache-Control
// is for the edge only).
func TestStoredHeaderDropsEdgeFields(t *testing.T) {
	clock := &fakeClock{now: rfcEpoch}
	h := rfcHandler(clock)
	header := rfcResponseHeader(clock.Now(), "Cdn-Cache-Control", "max-age=60", "Surrogate-Key", "a b", "X-Kept", "1")
	r, _ := http.NewRequest(http.MethodGet, "http://edge.example/x", nil)
	e := h.newEntry(200, header, nil, computePolicy(200, header, rfcConfig(clock)), r, clock.Now())
	if e.header.Get("Cdn-Cache-Control") != "" || e.header.Get("Surrogate-Key") != "" || e.header.Get("X-Kept") != "1" {
		t.Fatalf("stored header %v", e.header)
	}
	if !slices.Equal(e.tags, []string{"a", "b"}) || !e.responseTime.Equal(rfcEpoch) {
		t.Fatalf("tags %q, response time %v", e.tags, e.responseTime)
	}
}
