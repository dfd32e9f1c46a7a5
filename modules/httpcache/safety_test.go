package httpcache

import (
	"net/http"
	"strings"
	"testing"
)

// A response to a request with Authorization is never served to another
// client unless the origin marked it shareable; one with Set-Cookie or
// private never is.
func TestPrivateResponsesNeverShared(t *testing.T) {
	o := newOrigin(t)
	o.handle("/me", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Write([]byte("profile of " + r.Header.Get("Authorization")))
	})
	o.handle("/shared", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=60")
		w.Write([]byte("public page"))
	})
	o.respond("/cookie", 200, "Cache-Control", "public, max-age=60", "Set-Cookie", "session=alice")
	o.respond("/private", 200, "Cache-Control", "private, max-age=60")
	o.respond("/private-cdn", 200, "Cache-Control", "max-age=60", "CDN-Cache-Control", "private")
	e := startCache(t, o, "micro_cache 10s")

	alice := e.get(t, "/me", "Authorization", "Bearer alice")
	if alice.body != "profile of Bearer alice" {
		t.Fatalf("alice got %q", alice.body)
	}
	bob := e.get(t, "/me", "Authorization", "Bearer bob")
	anon := e.get(t, "/me")
	if bob.body != "profile of Bearer bob" || strings.Contains(anon.body, "alice") || strings.Contains(anon.body, "bob") {
		t.Fatalf("a private response was shared: bob %q, anonymous %q", bob.body, anon.body)
	}
	// public: stored even from an authorized request, and served to others.
	e.get(t, "/shared", "Authorization", "Bearer alice")
	wantHit(t, e.get(t, "/shared"))
	// ...but an authorized request is never answered from the store.
	wantMiss(t, e.get(t, "/shared", "Authorization", "Bearer bob"))

	for _, path := range []string{"/cookie", "/private", "/private-cdn"} {
		first := e.get(t, path)
		second := e.get(t, path)
		wantMiss(t, second)
		if first.body == second.body {
			t.Errorf("%s: the same response twice: %q", path, second.body)
		}
	}
}

// Unkeyed request headers never change a stored response: the headers
// frameworks honour as URL or host overrides do not reach the origin.
func TestUnkeyedHeadersCannotPoison(t *testing.T) {
	o := newOrigin(t)
	o.handle("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		host := r.Header.Get("X-Forwarded-Host")
		if host == "" {
			host = r.Host
		}
		w.Write([]byte("<script src=//" + host + "/app.js></script> url=" + r.Header.Get("X-Original-URL") + r.Header.Get("X-Rewrite-URL") + " method=" + r.Header.Get("X-HTTP-Method-Override")))
	})
	e := startCache(t, o, "")
	attack := e.get(t, "/page", "X-Forwarded-Host", "evil.example", "X-Original-URL", "/admin", "X-Rewrite-URL", "/admin", "X-HTTP-Method-Override", "DELETE")
	victim := e.get(t, "/page")
	wantHit(t, victim)
	for _, bad := range []string{"evil.example", "/admin", "DELETE"} {
		if strings.Contains(victim.body, bad) || strings.Contains(attack.body, bad) {
			t.Fatalf("stored response carries %q: %q", bad, victim.body)
		}
	}
}

// Path confusion cannot make a private page cacheable: only the origin's
// headers decide, never the path's look.
func TestPathConfusionCannotCachePrivatePages(t *testing.T) {
	o := newOrigin(t)
	account := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "private, no-store")
		w.Write([]byte("account of " + r.Header.Get("Cookie")))
	}
	// A lax origin that routes all of these to the account page.
	for _, p := range []string{"/account", "/account/..;/x.css", "/account/x.css", "/account%2Fx.css", "/account;x.css"} {
		o.handle(p, account)
	}
	e := startCache(t, o, "micro_cache 10s")
	for _, p := range []string{"/account/..;/x.css", "/account%2Fx.css", "/account;x.css", "/account/x.css"} {
		e.get(t, p, "Cookie", "session=alice")
		r := e.get(t, p, "Cookie", "session=mallory")
		if strings.Contains(r.body, "alice") {
			t.Fatalf("%s: alice's account page served to mallory: %q", p, r.body)
		}
		wantMiss(t, r)
	}
}
