package main

import (
	"fmt"
	"net/http"
	"testing"
)

// The edge cache's safety holds across tiers: what the origin keeps from
// shared caches, or from CDNs, stays out of the shield and of the edge; a
// varying response is told apart at both; and a CDN-only lifetime reaches
// the edge through the shield but never the browser.
func TestTierSafety(t *testing.T) {
	origin := startTierOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		switch r.URL.Path {
		case "/private":
			h.Set("Cache-Control", "private, max-age=600")
		case "/cdn-no-store":
			h.Set("Cache-Control", "public, max-age=600")
			h.Set("CDN-Cache-Control", "no-store")
		case "/set-cookie":
			h.Set("Cache-Control", "max-age=600")
			h.Set("Set-Cookie", "session="+r.Header.Get("X-User"))
		case "/authorized":
			h.Set("Cache-Control", "max-age=600")
		case "/account/profile.css": // web cache deception: a page at a static-looking URL
			h.Set("Content-Type", "text/html")
			h.Set("Last-Modified", "Mon, 02 Jan 2006 15:04:05 GMT")
		case "/vary":
			h.Set("Cache-Control", "public, max-age=600")
			h.Set("Vary", "Accept-Language")
		case "/cdn-only":
			h.Set("Cache-Control", "no-store")
			h.Set("CDN-Cache-Control", "max-age=600")
		}
		fmt.Fprintf(w, "%s for %s%s", r.URL.Path, r.Header.Get("X-User"), r.Header.Get("Accept-Language"))
	})
	shield := newTierNode(t, "shield-1", true)
	edgeA := newTierNode(t, "edge-a", false, shield.addr())
	edgeB := newTierNode(t, "edge-b", false, shield.addr())
	runFleet(t, origin.addr, shield, edgeA, edgeB)

	// Alice asks through edge-a with her credentials, Bob through edge-b
	// (and then edge-a) without: Bob must get his own answer each time.
	// fetches is what the origin must see: 3 when nothing may be shared;
	// 2 when only Alice's credentials kept her answer out of the tiers
	// (Bob's, without credentials, is shared with Bob's next request).
	for _, tc := range []struct {
		path    string
		alice   []string
		fetches int
	}{
		{"/private", []string{"Cookie", "session=alice", "X-User", "alice"}, 3},
		{"/cdn-no-store", []string{"X-User", "alice"}, 3},
		{"/set-cookie", []string{"X-User", "alice"}, 3},
		{"/authorized", []string{"Authorization", "Bearer alice", "X-User", "alice"}, 2},
		{"/account/profile.css", []string{"Cookie", "session=alice", "X-User", "alice"}, 3}, // armour: never stored
	} {
		if r := tierGet(t, edgeA, tc.path, tc.alice...); r.body != tc.path+" for alice" {
			t.Fatalf("%s: alice got %q", tc.path, r.body)
		}
		for _, n := range []*tierNode{edgeB, edgeA} {
			r := tierGet(t, n, tc.path, "X-User", "bob")
			if r.body != tc.path+" for bob" {
				t.Errorf("%s: bob via %s got %q (Cache-Status %q)", tc.path, n.name, r.body, r.cacheStatus)
			}
		}
		if n := origin.count(tc.path); n != tc.fetches {
			t.Errorf("%s: the origin answered %d of 3 requests, want %d", tc.path, n, tc.fetches)
		}
	}

	// Vary: each language stored apart at both tiers.
	for i, lang := range []string{"en", "fr", "en", "fr"} {
		n := []*tierNode{edgeA, edgeB}[i%2]
		if r := tierGet(t, n, "/vary", "Accept-Language", lang); r.body != "/vary for "+lang {
			t.Fatalf("/vary %s via %s: %q", lang, n.name, r.body)
		}
	}
	if n := origin.count("/vary"); n != 2 {
		t.Errorf("/vary: %d origin fetches for 2 languages", n)
	}

	// A lifetime for CDNs only: the shield forwards CDN-Cache-Control to
	// the edges, which store by it; browsers never see it.
	for _, n := range []*tierNode{edgeA, edgeB, edgeA} {
		r := tierGet(t, n, "/cdn-only")
		if r.header.Get("CDN-Cache-Control") != "" || r.header.Get("Cache-Control") != "no-store" {
			t.Fatalf("/cdn-only via %s: browser got CDN-Cache-Control %q, Cache-Control %q",
				n.name, r.header.Get("CDN-Cache-Control"), r.header.Get("Cache-Control"))
		}
	}
	if n := origin.count("/cdn-only"); n != 1 {
		t.Errorf("/cdn-only: %d origin fetches, want 1", n)
	}
	if r := tierGet(t, edgeA, "/cdn-only"); r.member("edge-a") == "" || r.member("edge-a")[:len("edge-a; hit")] != "edge-a; hit" {
		t.Errorf("/cdn-only: edge-a did not store it: %q", r.cacheStatus)
	}
}
