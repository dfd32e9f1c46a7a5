package httpcache

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	"github.com/lastmile-edge/lastmile/modules/quicedge"
	"github.com/lastmile-edge/lastmile/modules/wtsession"
)

// fastSites gives a site the fast path only when its route reaches
// edge_cache past handlers that pass a hit through, and logs why or why
// not.
func TestFastSitesWalksToTheCache(t *testing.T) {
	cache := new(Handler)
	site := func(handlers ...caddyhttp.MiddlewareHandler) caddyhttp.Route {
		return caddyhttp.Route{
			MatcherSets: caddyhttp.MatcherSets{{caddyhttp.MatchHost{"Example.com"}}},
			Handlers:    handlers,
		}
	}
	sub := func(routes ...caddyhttp.Route) *caddyhttp.Subroute { return &caddyhttp.Subroute{Routes: routes} }
	under := func(m caddyhttp.RequestMatcherWithError, handlers ...caddyhttp.MiddlewareHandler) caddyhttp.Route {
		return caddyhttp.Route{MatcherSets: caddyhttp.MatcherSets{{m}}, Handlers: handlers}
	}
	plain := func(handlers ...caddyhttp.MiddlewareHandler) caddyhttp.Route {
		return caddyhttp.Route{Handlers: handlers}
	}
	wtPath := caddyhttp.MatchPath{"/wt/echo"}
	for _, c := range []struct {
		name   string
		route  caddyhttp.Route
		fast   bool
		reason string
	}{
		{"first", site(cache), true, "edge_cache is the first handler of its route"},
		{"the shipped Caddyfile's shape",
			site(sub(plain(&quicedge.AltSvc{}), under(wtPath, &wtsession.Handler{}), plain(cache))), true,
			"edge_cache is reached past http.handlers.alt_svc, http.handlers.webtransport, which pass a hit through"},
		{"a handler that can vary the response",
			site(sub(plain(&caddyhttp.VarsMiddleware{}), plain(cache))), false,
			"a handler comes before edge_cache: http.handlers.vars"},
		{"edge_cache under a path",
			site(sub(under(wtPath, cache))), false, "edge_cache is under a matcher"},
		{"alt_svc under a path",
			site(sub(under(wtPath, &quicedge.AltSvc{}), plain(cache))), false,
			"a handler under a matcher adds fields before edge_cache: http.handlers.alt_svc"},
		{"a matcher the fast path cannot judge",
			site(sub(under(caddyhttp.MatchHeader{"X": {"y"}}, &wtsession.Handler{}), plain(cache))), false,
			"a route matched by more than path or method comes before edge_cache"},
		{"a terminal route before the cache",
			site(sub(caddyhttp.Route{Handlers: []caddyhttp.MiddlewareHandler{&quicedge.AltSvc{}}, Terminal: true}, plain(cache))), false,
			"a terminal route ends the site before edge_cache"},
		{"no cache", site(&quicedge.AltSvc{}), false, "the route has no edge_cache"},
	} {
		t.Run(c.name, func(t *testing.T) {
			core, logs := observer.New(zap.InfoLevel)
			sites := fastSites(caddyhttp.RouteList{c.route}, zap.New(core))
			if got := sites["example.com"]; (got != nil) != c.fast || c.fast && got.cache != cache {
				t.Fatalf("site %+v, want fast %v", got, c.fast)
			}
			entries := logs.All()
			if len(entries) != 1 {
				t.Fatalf("%d log entries, want 1", len(entries))
			}
			if got := entries[0].ContextMap()["reason"]; got != c.reason {
				t.Fatalf("reason %q, want %q", got, c.reason)
			}
		})
	}
}

// Which sites get the fast path is decided and logged when the config
// starts, before any request; a config that is only validated (`caddy
// validate`, a refused reload) logs no decision.
func TestFastSitesDecidedWhenTheConfigStarts(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	port := testcaddy.FreePort(t)
	caddyfile := fmt.Sprintf(`{
	admin 127.0.0.1:%s
	auto_https off
	persist_config off
	log {
		output file %s
		format json
	}
}
http://fast.example:%s {
	edge_cache
	respond "fast"
}
http://slow.example:%s {
	vars x y
	edge_cache
	respond "slow"
}
`, testcaddy.FreePort(t), logFile, port, port)
	decisions := func() []string {
		data, err := os.ReadFile(logFile)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return regexp.MustCompile(`"msg":"(?:no )?fast hit path for site","host":"[^"]*"`).FindAllString(string(data), -1)
	}
	js, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := testcaddy.Validate(t, string(js)); err != nil {
		t.Fatal(err)
	}
	if d := decisions(); len(d) != 0 {
		t.Fatalf("validating the config logged %q", d)
	}
	testcaddy.Run(t, caddyfile)
	want := []string{
		`"msg":"fast hit path for site","host":"fast.example"`,
		`"msg":"no fast hit path for site","host":"slow.example"`,
	}
	deadline := time.Now().Add(5 * time.Second)
	for d := decisions(); !slices.Equal(d, want); d = decisions() {
		if time.Now().After(deadline) {
			t.Fatalf("logged %q without a request, want %q", d, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
