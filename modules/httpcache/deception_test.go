package httpcache

import (
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"testing"
	"time"
)

// deceptionShapes are URLs a framework that ignores path suffixes answers
// with the account page, while they look like static files (web cache
// deception).
var deceptionShapes = []string{
	"/account/x.css", "/account;x.css", "/account%2Fx.css", "/account.css", "/static/..%2Faccount", "/account/x.js?v=1",
}

// credentialKinds are the ways a browser or app proves who it is; X-Session
// is a configured credential header.
var credentialKinds = []struct{ name, field, victim, other string }{
	{"cookie", "Cookie", "session=victim", "session=mallory"},
	{"authorization", "Authorization", "Bearer victim", "Bearer mallory"},
	{"session-header", "X-Session", "victim", "mallory"},
}

// startAccountOrigin is a web application whose framework routes by a
// forgiving reading of the path, as many do: %2F decoded, ;parameters
// dropped, dot-segments resolved, and anything below /account or named
// /account.<ext> is the account page. Like most rendered pages it sends
// Last-Modified and no Cache-Control: heuristically cacheable.
func startAccountOrigin(t *testing.T) *httptest.Server {
	lastModified := time.Now().Add(-48 * time.Hour).UTC().Format(http.TimeFormat)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Last-Modified", lastModified)
		p := strings.NewReplacer("%2F", "/", "%2f", "/").Replace(r.URL.EscapedPath())
		segs := strings.Split(p, "/")
		for i, s := range segs {
			segs[i], _, _ = strings.Cut(s, ";")
		}
		p = path.Clean(strings.Join(segs, "/"))
		if p != "/account" && !strings.HasPrefix(p, "/account/") && !strings.HasPrefix(p, "/account.") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		user := r.Header.Get("Cookie") + r.Header.Get("Authorization") + r.Header.Get("X-Session")
		if user == "" {
			w.Write([]byte("<h1>log in</h1>"))
			return
		}
		w.Write([]byte("<h1>account page of " + user + "</h1>"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The victim, logged in, is lured to a URL that looks like a static file
// and is their account page; the attacker then asks for the same URL,
// without credentials or with their own. With the default configuration
// the victim's page is never stored, so never served to anyone else, for
// each credential kind and protocol.
func TestWebCacheDeceptionDoesNotLeak(t *testing.T) {
	o := startAccountOrigin(t)
	for _, p := range protocols {
		for _, cred := range credentialKinds {
			t.Run(p.name+"/"+cred.name, func(t *testing.T) {
				e := startTLSCache(t, hostPort(o.URL), "credential_headers X-Session")
				for _, shape := range deceptionShapes {
					victim := e.get(t, p.name, p.proto, shape, cred.field, cred.victim)
					if !strings.Contains(victim.body, "account page of "+cred.victim) {
						t.Fatalf("%s: the origin did not take it for the account page: %d %q", shape, victim.status, victim.body)
					}
					if strings.Contains(victim.cacheStatus(), "stored") {
						t.Errorf("%s: the victim's page was stored: Cache-Status %q", shape, victim.cacheStatus())
					}
					attacker := e.get(t, p.name, p.proto, shape)
					other := e.get(t, p.name, p.proto, shape, cred.field, cred.other)
					for who, r := range map[string]result{"anonymous": attacker, "another user": other} {
						if strings.Contains(r.body, "victim") {
							t.Errorf("%s: %s got the victim's page: Cache-Status %q, body %q", shape, who, r.cacheStatus(), r.body)
						}
					}
				}
			})
		}
	}
}

// Without credentials the same URLs are the public login page: heuristic
// freshness still stores it, except where the path says a static type the
// page is not (the armour).
func TestWebCacheDeceptionShapesWithoutCredentials(t *testing.T) {
	o := startAccountOrigin(t)
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			e := startTLSCache(t, hostPort(o.URL), "")
			for _, shape := range deceptionShapes {
				e.get(t, p.name, p.proto, shape)
				second := e.get(t, p.name, p.proto, shape)
				if second.body != "<h1>log in</h1>" {
					t.Fatalf("%s: %q", shape, second.body)
				}
				static := staticExtension(strings.SplitN(shape, "?", 2)[0]) != ""
				if static {
					wantMiss(t, second)
					if !strings.Contains(second.cacheStatus(), "detail=armour") {
						t.Errorf("%s: Cache-Status %q, want the armour's refusal", shape, second.cacheStatus())
					}
				} else {
					wantHit(t, second)
				}
			}
		})
	}
}
