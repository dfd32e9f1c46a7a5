package httpcache

import (
	"crypto/x509"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// A response to a request with credentials is stored, and served to
// others, only when the origin explicitly lets shared caches keep it.
func TestCredentialedResponsesNeedPermissionToShare(t *testing.T) {
	lastModified := time.Now().Add(-48 * time.Hour).UTC().Format(http.TimeFormat)
	for _, tc := range []struct {
		name   string
		header []string
		shared bool
	}{
		{"max-age", []string{"Cache-Control", "max-age=60"}, false},
		{"last-modified", []string{"Last-Modified", lastModified}, false},
		{"etag", []string{"ETag", `"v1"`}, false},
		{"immutable", []string{"Cache-Control", "max-age=60, immutable"}, false},
		{"public", []string{"Cache-Control", "public, max-age=60"}, true},
		{"s-maxage", []string{"Cache-Control", "s-maxage=60"}, true},
		{"cdn-cache-control", []string{"CDN-Cache-Control", "max-age=60"}, true},
		{"surrogate-control", []string{"Surrogate-Control", "max-age=60"}, true},
	} {
		for _, cred := range credentialKinds {
			t.Run(tc.name+"/"+cred.name, func(t *testing.T) {
				o := newOrigin(t)
				o.respond("/p", 200, tc.header...)
				e := startCache(t, o, "credential_headers X-Session")
				refused := e.metric(t, `lastmile_cache_deception_refused_total{guard="credentials"}`)
				first := e.get(t, "/p", cred.field, cred.victim)
				anon := e.get(t, "/p")
				if !tc.shared {
					want := "detail=credentials"
					if cred.field == "Authorization" {
						want = "detail=authorization" // RFC 9111 section 3.5's own refusal
					} else if got := e.metric(t, `lastmile_cache_deception_refused_total{guard="credentials"}`) - refused; got != 1 {
						t.Errorf("credential refusals counted %v, want 1", got)
					}
					if !strings.Contains(first.cacheStatus(), want) {
						t.Errorf("Cache-Status %q, want %s", first.cacheStatus(), want)
					}
					wantMiss(t, anon)
					return
				}
				wantHit(t, anon)
				if anon.body != first.body {
					t.Fatalf("anonymous got %q, not the shared %q", anon.body, first.body)
				}
			})
		}
	}
}

// public without a lifetime gives permission to share, not a heuristic
// lifetime: stored, and revalidated before anyone else gets it.
func TestCredentialedPublicGetsNoHeuristicLifetime(t *testing.T) {
	o := newOrigin(t)
	o.respond("/p", 200, "Cache-Control", "public", "Last-Modified", time.Now().Add(-48*time.Hour).UTC().Format(http.TimeFormat))
	e := startCache(t, o, "")
	if r := e.get(t, "/p", "Cookie", "session=victim"); !strings.Contains(r.cacheStatus(), "stored") {
		t.Fatalf("Cache-Status %q", r.cacheStatus())
	}
	if r := e.get(t, "/p"); !strings.Contains(r.cacheStatus(), "fwd=stale") || r.body != "/p #2" {
		t.Fatalf("want a revalidation: Cache-Status %q, body %q", r.cacheStatus(), r.body)
	}
	// Without credentials, heuristic freshness applies.
	wantHit(t, e.get(t, "/p"))
}

// Cookies named in the key identify no one: a request with only those is
// not credentialed. A repeated or malformed keyed cookie is.
func TestKeyedCookiesAreNotCredentials(t *testing.T) {
	k := KeyConfig{Cookies: []string{"lang", "theme"}}
	for _, tc := range []struct {
		lines []string
		only  bool
	}{
		{nil, true},
		{[]string{"lang=de"}, true},
		{[]string{"lang=de; theme=dark"}, true},
		{[]string{"lang=de", "theme=dark"}, true},
		{[]string{"lang=de; session=x"}, false},
		{[]string{"lang=de; lang=fr"}, false},
		{[]string{"lang=de", "lang=fr"}, false},
		{[]string{"lang=de; bogus"}, false},
		{[]string{""}, false},
	} {
		if got := k.onlyKeyedCookies(tc.lines); got != tc.only {
			t.Errorf("%q: %v, want %v", tc.lines, got, tc.only)
		}
	}
	if (&KeyConfig{}).onlyKeyedCookies([]string{"lang=de"}) {
		t.Error("with no keyed cookies, a cookie is a credential")
	}
}

func TestHasCredentials(t *testing.T) {
	h := &Handler{CredentialHeaders: []string{"X-Session"}, Key: KeyConfig{Cookies: []string{"lang"}}}
	withTLS := httptest.NewRequest(http.MethodGet, "https://example.com/", nil)
	withClientCert := httptest.NewRequest(http.MethodGet, "https://example.com/", nil)
	withClientCert.TLS.PeerCertificates = []*x509.Certificate{{}}
	for _, tc := range []struct {
		name   string
		r      *http.Request
		header []string
		want   bool
	}{
		{"none", httptest.NewRequest(http.MethodGet, "/", nil), nil, false},
		{"authorization", httptest.NewRequest(http.MethodGet, "/", nil), []string{"Authorization", "Basic eDp5"}, true},
		{"empty authorization", httptest.NewRequest(http.MethodGet, "/", nil), []string{"Authorization", ""}, true},
		{"credential header", httptest.NewRequest(http.MethodGet, "/", nil), []string{"x-session", "s"}, true},
		{"keyed cookie", httptest.NewRequest(http.MethodGet, "/", nil), []string{"Cookie", "lang=de"}, false},
		{"session cookie", httptest.NewRequest(http.MethodGet, "/", nil), []string{"Cookie", "lang=de; sid=1"}, true},
		{"TLS", withTLS, nil, false},
		{"client certificate", withClientCert, nil, true},
	} {
		for i := 0; i+1 < len(tc.header); i += 2 {
			tc.r.Header.Add(tc.header[i], tc.header[i+1])
		}
		if got := h.hasCredentials(tc.r); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}

	// What a fetch for the store keeps: keyed cookies, Vary fields, the
	// scheme; not the rest.
	withClientCert.Header.Set("Cookie", "sid=1; lang=de")
	withClientCert.Header.Set("Authorization", "Bearer x")
	withClientCert.Header.Set("X-Session", "s")
	h.stripCredentials(withClientCert, []string{"x-session"})
	if got := withClientCert.Header; got.Get("Cookie") != "lang=de" || got.Get("Authorization") != "" || got.Get("X-Session") != "s" {
		t.Errorf("after stripping: %v", got)
	}
	if withClientCert.TLS == nil || len(withClientCert.TLS.PeerCertificates) != 0 {
		t.Errorf("after stripping: TLS %+v", withClientCert.TLS)
	}
	if !h.hasCredentials(withClientCert) {
		t.Error("a kept Vary field is still a credential")
	}
}

// A credentialed leader's response goes to concurrent waiters only if it
// may be shared, and only to those whose Vary values match.
func TestCoalescedWaitersGetOnlyShareableResponses(t *testing.T) {
	lastModified := time.Now().Add(-48 * time.Hour).UTC().Format(http.TimeFormat)
	for _, tc := range []struct {
		name, leader, waiter string
		header               []string
	}{
		{"heuristic, anonymous waiter", "session=victim", "", []string{"Last-Modified", lastModified}},
		{"heuristic, other user", "session=victim", "session=mallory", []string{"Last-Modified", lastModified}},
		{"public, varies on cookie", "session=victim", "session=mallory", []string{"Cache-Control", "public, max-age=60", "Vary", "Cookie"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newOrigin(t)
			release := make(chan struct{})
			o.handle("/slow", func(w http.ResponseWriter, r *http.Request) {
				for i := 0; i+1 < len(tc.header); i += 2 {
					w.Header().Set(tc.header[i], tc.header[i+1])
				}
				if strings.Contains(r.Header.Get("Cookie"), "victim") {
					<-release
				}
				fmt.Fprintf(w, "page of %q", r.Header.Get("Cookie"))
			})
			e := startCache(t, o, "")
			coalesced := e.metric(t, "lastmile_cache_coalesced_total")
			var wg sync.WaitGroup
			var waiter result
			wg.Go(func() { e.get(t, "/slow", "Cookie", tc.leader) })
			waitUntil(t, func() bool { return o.count("/slow") == 1 })
			wg.Go(func() {
				if tc.waiter == "" {
					waiter = e.get(t, "/slow")
				} else {
					waiter = e.get(t, "/slow", "Cookie", tc.waiter)
				}
			})
			waitUntil(t, func() bool { return e.metric(t, "lastmile_cache_coalesced_total") > coalesced })
			close(release)
			wg.Wait()
			if strings.Contains(waiter.body, "victim") {
				t.Fatalf("the waiter got the leader's page: Cache-Status %q, body %q", waiter.cacheStatus(), waiter.body)
			}
		})
	}
}

// A stored response is revalidated without the client's credentials: the
// origin is asked about the shared response, and a 304 it answers with a
// Set-Cookie never reaches another client.
func TestRevalidationCarriesNoCredentials(t *testing.T) {
	o := newOrigin(t)
	o.handle("/r", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, no-cache")
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("Cookie") != "" {
			// A rolling session: every response renews the cookie.
			w.Header().Set("Set-Cookie", "renewed="+r.Header.Get("Cookie"))
		}
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Write([]byte("shared page"))
	})
	e := startCache(t, o, "credential_headers X-Session")
	e.get(t, "/r")
	victim := e.get(t, "/r", "Cookie", "session=victim", "X-Session", "victim")
	if victim.body != "shared page" {
		t.Fatalf("victim got %q", victim.body)
	}
	if got := o.last("/r"); got.Header.Get("Cookie") != "" || got.Header.Get("X-Session") != "" {
		t.Fatalf("the revalidation carried credentials: %v", got.Header)
	}
	for range 2 {
		anon := e.get(t, "/r")
		if sc := anon.header.Values("Set-Cookie"); len(sc) > 0 {
			t.Fatalf("another client got Set-Cookie %q", sc)
		}
	}
}

// A 304 that carries Set-Cookie makes the response one client's: it is
// neither stored nor given to others.
func TestNotModifiedWithSetCookieIsNotShared(t *testing.T) {
	o := newOrigin(t)
	var once sync.Once
	o.handle("/r", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, no-cache")
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") != `"v1"` {
			w.Write([]byte("page"))
			return
		}
		// A visitor cookie, set once, on a 304.
		once.Do(func() { w.Header().Set("Set-Cookie", "visitor=1") })
		w.WriteHeader(http.StatusNotModified)
	})
	e := startCache(t, o, "")
	e.get(t, "/r")
	got := 0
	for range 3 {
		r := e.get(t, "/r")
		if r.body != "page" {
			t.Fatalf("body %q", r.body)
		}
		got += len(r.header.Values("Set-Cookie"))
	}
	if got > 1 {
		t.Fatalf("%d clients got the one Set-Cookie", got)
	}
}

// Background fetches (prefetch, refresh) carry no credentials, but keep
// the keyed cookies, whose values are in the key they store under.
func TestBackgroundFetchesCarryNoCredentials(t *testing.T) {
	o := newOrigin(t)
	o.respond("/page", 200, "Cache-Control", "public, max-age=60", "Link", "</style.css>; rel=preload; as=style")
	o.respond("/style.css", 200, "Cache-Control", "max-age=60", "Content-Type", "text/css")
	e := startCache(t, o, "credential_headers X-Session\n\t\tkey {\n\t\t\tcookies lang\n\t\t}\n\t\tprefetch")
	e.get(t, "/page", "Cookie", "lang=de; session=victim", "X-Session", "victim", "Authorization", "Bearer victim")
	waitUntil(t, func() bool { return o.count("/style.css") == 1 })
	got := o.last("/style.css").Header
	if got.Get("Cookie") != "lang=de" || got.Get("X-Session") != "" || got.Get("Authorization") != "" {
		t.Fatalf("the prefetch sent Cookie %q, X-Session %q, Authorization %q", got.Get("Cookie"), got.Get("X-Session"), got.Get("Authorization"))
	}
	// Stored under the keyed cookie's value (or still being fetched).
	if r := e.get(t, "/style.css", "Cookie", "lang=de"); r.body != "/style.css #1" || o.count("/style.css") != 1 {
		t.Fatalf("a second origin fetch: Cache-Status %q, body %q", r.cacheStatus(), r.body)
	}
}

// waitUntil polls cond for up to 5 s.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
