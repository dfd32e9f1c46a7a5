package httpcache

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyevents"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/lastmile-edge/lastmile/internal/frontdoor"
	"github.com/lastmile-edge/lastmile/internal/promreg"
)

// The fast hit path answers a fresh (or max-stale) hit before Caddy's
// per-request set-up, for the sites whose route reaches edge_cache before
// anything that could refuse, rewrite or vary the response: then the
// handler would answer the same hit with the same bytes, less the set-up.
// Which sites get it is decided once per server from its provisioned
// routes (fastSites) and logged with the reason. Everything the fast path
// does not answer, and every request of other sites, goes to the Caddy
// server untouched, which runs the same decide.

// installFastPath asks for the fast path on every server of the http app
// that loads h.
func (h *Handler) installFastPath(ctx caddy.Context) error {
	for _, c := range []prometheus.Collector{fastHits, http3FastHits} {
		if err := promreg.Register(ctx.GetMetricsRegistry(), c); err != nil {
			return err
		}
	}
	for _, m := range ctx.Modules() {
		app, ok := m.(*caddyhttp.App)
		if !ok {
			continue
		}
		h.app = app
		installed := false
		for _, srv := range app.Servers {
			logger := h.logger
			installed = frontdoor.Install(srv, func(srv *caddyhttp.Server) http.Handler {
				return newFastFront(srv, app, logger)
			}) || installed
		}
		if !installed {
			return nil // the config's first edge_cache installed them
		}
		return buildFastPathOnStart(ctx, app)
	}
	return nil
}

// buildFastPathOnStart builds the servers' fronts when Caddy reports the
// config started, so which sites get the fast path is decided and logged
// when the config loads, not at a server's first request (a site without
// traffic would never say). Every route is provisioned by then, and
// Provision also runs for configs that are only validated, which must not
// log a decision.
func buildFastPathOnStart(ctx caddy.Context, app *caddyhttp.App) error {
	events, err := ctx.App("events")
	if err != nil {
		return fmt.Errorf("edge_cache: getting the events app: %w", err)
	}
	return events.(*caddyevents.App).On("started", fastPathBuilder{app})
}

// fastPathBuilder builds the fronts of an http app's servers.
type fastPathBuilder struct{ app *caddyhttp.App }

func (b fastPathBuilder) Handle(context.Context, caddy.Event) error {
	for _, srv := range b.app.Servers {
		frontdoor.Build(srv)
	}
	return nil
}

var _ caddyevents.Handler = fastPathBuilder{}

// fastHits counts the hits the fast path answered (they are also in
// requests_total): the share of hits that skipped Caddy's set-up.
var fastHits = prometheus.NewCounter(prometheus.CounterOpts{
	Namespace: "lastmile", Subsystem: "cache", Name: "fast_hits_total",
	Help: "Hits answered on the fast hit path, before Caddy's per-request set-up (also counted in requests_total).",
})

// forgetFastPath drops the fronts of the app h was loaded in.
func (h *Handler) forgetFastPath() {
	if h.app == nil {
		return
	}
	for _, srv := range h.app.Servers {
		frontdoor.Forget(srv)
	}
}

// fastFront is a server's fast hit path.
type fastFront struct {
	next      *caddyhttp.Server
	sites     map[string]*fastSite // lower-case host -> the way its route reaches its cache
	tls       bool                 // the server has TLS policies: requests must carry their TLS state
	strictSNI bool
	// writeIdle bounds each write of a body as Caddy's write_idle_timeout
	// does (requests with a body, which read_idle_timeout would bound, go
	// to Caddy).
	writeIdle time.Duration
}

// newFastFront returns srv's front, or nil if no site of srv gets one.
func newFastFront(srv *caddyhttp.Server, app *caddyhttp.App, logger *zap.Logger) http.Handler {
	if why := serverRefusesFastPath(srv, app); why != "" {
		logger.Info("no fast hit path on this server", zap.Strings("listen", srv.Listen), zap.String("reason", why))
		return nil
	}
	sites := fastSites(srv.Routes, logger)
	if len(sites) == 0 {
		return nil
	}
	return &fastFront{
		next: srv, sites: sites,
		tls:       len(srv.TLSConnPolicies) > 0,
		strictSNI: srv.StrictSNIHost != nil && *srv.StrictSNIHost,
		writeIdle: time.Duration(srv.WriteIdleTimeout),
	}
}

// serverRefusesFastPath says why the server's own per-request work must
// see every request, or "".
func serverRefusesFastPath(srv *caddyhttp.Server, app *caddyhttp.App) string {
	switch {
	case srv.Logs != nil:
		return "access logs are on (they log every request through Caddy)"
	case app.Metrics != nil || srv.Metrics != nil:
		return "Caddy's HTTP metrics are on (they count every request through Caddy)"
	case len(srv.ExpectedUnderscoreHeaders) > 0 || len(srv.ExpectedDotHeaders) > 0:
		return "expected_underscore_headers/expected_dot_headers rewrite request headers"
	case len(srv.TLSConnPolicies) > 0 && (srv.Protocols == nil || slices.Contains(srv.Protocols, "h3")):
		return "Caddy's own HTTP/3 adds Alt-Svc to every response"
	}
	return ""
}

// fastSites walks the routes in order, as Caddy does, and returns the
// hosts whose route reaches edge_cache past nothing but handlers that pass
// a hit through (frontdoor.PassThrough). It stops at the first route
// matched by anything but literal hosts: what follows may be preceded by
// it.
func fastSites(routes caddyhttp.RouteList, logger *zap.Logger) map[string]*fastSite {
	sites := make(map[string]*fastSite)
	seen := make(map[string]bool)
	for _, rt := range routes {
		hosts, why := literalHosts(rt)
		if why != "" {
			logger.Info("no fast hit path for the routes from here on", zap.String("reason", why))
			break
		}
		var site fastSite
		reached, why := site.walkHandlers(rt.Handlers)
		if !reached && why == "" {
			why = "the route has no edge_cache"
		}
		for _, host := range hosts {
			if seen[host] {
				continue // an earlier route answers this host
			}
			seen[host] = true
			if !reached {
				logger.Info("no fast hit path for site", zap.String("host", host), zap.String("reason", why))
				continue
			}
			sites[host] = &site
			logger.Info("fast hit path for site", zap.String("host", host), zap.String("reason", site.why()))
		}
	}
	return sites
}

// literalHosts returns the hosts a route is matched by, if it is matched
// by host names alone.
func literalHosts(rt caddyhttp.Route) ([]string, string) {
	if rt.Group != "" {
		return nil, "a route in a group"
	}
	if len(rt.MatcherSets) == 0 {
		return nil, "a route without a host matcher"
	}
	var hosts []string
	for _, set := range rt.MatcherSets {
		if len(set) != 1 {
			return nil, "a route matched by more than its host"
		}
		var mh caddyhttp.MatchHost
		switch m := set[0].(type) {
		case caddyhttp.MatchHost:
			mh = m
		case *caddyhttp.MatchHost:
			mh = *m
		default:
			return nil, "a route matched by more than its host"
		}
		for _, host := range mh {
			if strings.ContainsAny(host, "{*") {
				return nil, "a route matched by a wildcard or placeholder host"
			}
			hosts = append(hosts, strings.ToLower(host))
		}
	}
	return hosts, ""
}

// fastSite is the way a site's requests reach its cache: the handlers
// they pass on the way, which the fast path asks as Caddy would run them.
type fastSite struct {
	cache  *Handler
	passes []frontdoor.PassThrough
	adders []frontdoor.FieldAdder // those that add fields to every response they pass
	names  []string               // of the handlers passed, for the log
}

func (s *fastSite) why() string {
	if len(s.names) == 0 {
		return "edge_cache is the first handler of its route"
	}
	return "edge_cache is reached past " + strings.Join(s.names, ", ") + ", which pass a hit through"
}

// walkHandlers follows a route's handlers in order and reports whether
// they reach edge_cache past pass-through handlers only, or why not ("" when
// they all pass and the request goes on to the next route).
func (s *fastSite) walkHandlers(handlers []caddyhttp.MiddlewareHandler) (reached bool, why string) {
	for _, h := range handlers {
		switch h := h.(type) {
		case *Handler:
			s.cache = h
			return true, ""
		case *caddyhttp.Subroute:
			if reached, why := s.walkRoutes(h.Routes); reached || why != "" {
				return reached, why
			}
		case frontdoor.PassThrough:
			s.passes = append(s.passes, h)
			if a, ok := h.(frontdoor.FieldAdder); ok {
				s.adders = append(s.adders, a)
			}
			s.names = append(s.names, caddyModuleName(h))
		default:
			return false, "a handler comes before edge_cache: " + caddyModuleName(h)
		}
	}
	return false, ""
}

// walkRoutes is walkHandlers for a subroute's routes. A route matched by
// path or method before edge_cache is passed whether it matches or not
// if all its handlers pass the request: the fast path then need not
// evaluate its matchers (which need Caddy's per-request replacer).
func (s *fastSite) walkRoutes(routes caddyhttp.RouteList) (reached bool, why string) {
	for _, rt := range routes {
		if rt.Group != "" {
			return false, "a route in a group comes before edge_cache"
		}
		if len(rt.MatcherSets) == 0 {
			if reached, why := s.walkHandlers(rt.Handlers); reached || why != "" {
				return reached, why
			}
			if rt.Terminal {
				return false, "a terminal route ends the site before edge_cache"
			}
			continue
		}
		if !pathOrMethodMatchers(rt.MatcherSets) {
			return false, "a route matched by more than path or method comes before edge_cache"
		}
		if rt.Terminal {
			return false, "a terminal route with a matcher comes before edge_cache"
		}
		var matched fastSite
		reached, why := matched.walkHandlers(rt.Handlers)
		switch {
		case reached:
			return false, "edge_cache is under a matcher"
		case why != "":
			return false, why
		case len(matched.adders) > 0:
			return false, "a handler under a matcher adds fields before edge_cache: " + caddyModuleName(matched.adders[0])
		}
		s.passes = append(s.passes, matched.passes...)
		s.names = append(s.names, matched.names...)
	}
	return false, ""
}

// pathOrMethodMatchers reports whether every matcher of sets is a path or
// method matcher: they neither fail nor set anything a later handler sees.
func pathOrMethodMatchers(sets caddyhttp.MatcherSets) bool {
	for _, set := range sets {
		for _, m := range set {
			switch m.(type) {
			case caddyhttp.MatchPath, *caddyhttp.MatchPath, caddyhttp.MatchMethod, *caddyhttp.MatchMethod:
			default:
				return false
			}
		}
	}
	return true
}

// passesThrough reports whether every handler before the cache passes r through.
func (s *fastSite) passesThrough(r *http.Request) bool {
	for _, p := range s.passes {
		if !p.PassesThrough(r) {
			return false
		}
	}
	return true
}

func caddyModuleName(h any) string {
	if m, ok := h.(caddy.Module); ok {
		return string(m.CaddyModule().ID)
	}
	return "?"
}

// bufferedBody is what net/http's HTTP/1.1 response buffer holds (4 KiB):
// a body this small is written to the socket after the handler returns,
// outside any deadline a handler sets, with Caddy as without.
const bufferedBody = 4 << 10

// tlsStateKey is the context key under which Caddy's http app keeps a
// connection's TLS state when a listener wrapper hides the *tls.Conn
// (caddyhttp's unexported tlsConnectionStateFuncCtxKey, whose value this
// is; TestDefaultCaddyfileHitsTakeTheFastPath fails if it changes).
var tlsStateKey = caddy.CtxKey("tls_connection_state_func")

// caddyServerHeader is the Server field Caddy sets on every response.
var caddyServerHeader = []string{"Caddy"}

// ServeHTTP answers r on the fast path if it can, else hands it to Caddy.
func (f *fastFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s := f.site(r); s != nil && s.passesThrough(r) && s.cache.serveFast(w, r, f.writeIdle, s.adders) {
		return
	}
	f.next.ServeHTTP(w, r)
}

// site is the way to the cache that answers r first, or nil when Caddy's
// own checks of the request (Server.serveHTTP, the strict SNI check, ACME
// challenges) could answer or change it.
func (f *fastFront) site(r *http.Request) *fastSite {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return nil
	}
	// A request with a body goes to Caddy, which bounds reading it
	// (HTTP/3 does not know the length of a GET's empty body: -1).
	if r.ContentLength > 0 || r.ContentLength < 0 && r.ProtoMajor < 3 {
		return nil
	}
	if f.tls && r.TLS == nil {
		// A listener wrapper (client_tcp) hid the *tls.Conn: the state
		// is restored as Caddy's Server.ServeHTTP restores it.
		state, ok := r.Context().Value(tlsStateKey).(func() *tls.ConnectionState)
		if !ok {
			return nil
		}
		if r.TLS = state(); r.TLS == nil {
			return nil
		}
	}
	host := r.Host
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		if hh, _, err := net.SplitHostPort(host); err == nil {
			host = hh
		}
	}
	site := f.sites[host]
	if site == nil {
		return nil
	}
	if f.strictSNI && r.TLS != nil && !strings.EqualFold(r.TLS.ServerName, host) {
		return nil
	}
	if strings.HasPrefix(r.URL.Path, "/.well-known/acme-challenge/") {
		return nil
	}
	for k := range r.Header {
		// Caddy drops such fields before any handler sees them.
		if strings.ContainsAny(k, "_.") {
			return nil
		}
	}
	return site
}

// serveFast answers r if decide says the store alone answers it: a fresh
// hit not due for refresh-ahead, or max-stale, with the fields adders, the
// handlers before the cache, add. It reports whether it did.
func (h *Handler) serveFast(w http.ResponseWriter, r *http.Request, writeIdle time.Duration, adders []frontdoor.FieldAdder) bool {
	start := time.Now()
	d, ok := h.fastDecision(r)
	if !ok {
		return false
	}
	if writeIdle > 0 && len(d.e.body) > bufferedBody {
		// The body does not fit the server's buffer: its write blocks on
		// the client, bounded as Caddy bounds it.
		rc := http.NewResponseController(w)
		_ = rc.SetWriteDeadline(start.Add(writeIdle))
		defer func() { _ = rc.SetWriteDeadline(time.Time{}) }()
	}
	if ew, ok := w.(encodedResponseWriter); ok && d.verdict == verdictFresh {
		if h.answerFreshHTTP3(ew, w.Header(), r, d, h.http3Head(d.e), start, adders) {
			return true
		}
		clear(w.Header()) // the adders' fields: serveDecided adds them again
	}
	h.serveDecided(w, r, d, start, adders)
	return true
}

// fastDecision is decide's verdict on r if the store alone answers it.
func (h *Handler) fastDecision(r *http.Request) (decision, bool) {
	d := h.decide(r)
	switch d.verdict {
	case verdictFresh:
		if h.nearEnd(d.e, d.ttl) {
			return d, false // the route's handler counts it and refreshes
		}
	case verdictMaxStale:
	default:
		return d, false
	}
	return d, true
}

// serveDecided answers r from the entry fastDecision found.
func (h *Handler) serveDecided(w http.ResponseWriter, r *http.Request, d decision, start time.Time, adders []frontdoor.FieldAdder) {
	fastHits.Inc()
	w.Header()["Server"] = caddyServerHeader
	for _, a := range adders {
		a.AddFields(r, w.Header())
	}
	cs := cacheStatus{start: start, name: h.statusItem}
	if d.verdict == verdictFresh {
		h.serveFresh(w, r, d, &cs)
		h.maybeRefreshAhead(d.e, d.key, r, nil, d.ttl, d.now) // counts the hit; not near its end
	} else {
		h.serveMaxStale(w, r, d, &cs)
	}
}
