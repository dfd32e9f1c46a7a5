package httpcache

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/lastmile-edge/lastmile/internal/frontdoor"
	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	"github.com/lastmile-edge/lastmile/modules/quicedge"
)

// The fast path must stay cheaper than the route's handler: fewer
// allocations per hit (a ratio, not a time, so it holds on any machine).
func TestFastPathAllocatesLessThanTheRoute(t *testing.T) {
	h, req, origin := benchCache(t, "allocs-fast")
	w := &discardWriter{h: make(http.Header, 16)}
	route := leastAllocs(func() {
		clear(w.h)
		_ = h.ServeHTTP(w, req, origin)
	})
	fast := leastAllocs(func() {
		clear(w.h)
		h.serveFast(w, req, 0, nil)
	})
	if fast >= route {
		t.Fatalf("a fast hit allocates %v times, the route's %v: want fewer", fast, route)
	}
}

// alt_svc before the cache, on the default site, adds no allocation to a
// fast hit: its value is made once per port.
func TestFastHitPastAltSvcAllocatesNoMore(t *testing.T) {
	h, req, _ := benchCache(t, "allocs-fast-plain")
	ah, areq, origin := benchCache(t, "allocs-fast-alt-svc")
	areq, alt := altSvcHit(t, ah, areq, origin)
	w := &discardWriter{h: make(http.Header, 16)}
	plain := leastAllocs(func() {
		clear(w.h)
		h.serveFast(w, req, 0, nil)
	})
	adders := []frontdoor.FieldAdder{alt}
	past := leastAllocs(func() {
		clear(w.h)
		ah.serveFast(w, areq, 0, adders)
	})
	if past > plain {
		t.Fatalf("a fast hit past alt_svc allocates %v times, without it %v", past, plain)
	}
}

// leastAllocs is the least of a few testing.AllocsPerRun of f, which
// count the whole process's allocations: the least leaves out other
// goroutines' (a previous test's edge shutting down).
func leastAllocs(f func()) float64 {
	n := testing.AllocsPerRun(200, f)
	for range 4 {
		n = min(n, testing.AllocsPerRun(200, f))
	}
	return n
}

// BenchmarkFastHit is the fast path's share of a hit (decide, headers,
// body), to compare with BenchmarkHit, the route handler's.
func BenchmarkFastHit(b *testing.B) {
	h, req, _ := benchCache(b, "bench-fast")
	benchFastHit(b, h, req, nil)
}

// BenchmarkFastHitAltSvc is BenchmarkFastHit on the default site: over TLS
// past alt_svc, which adds Alt-Svc for the quic app's port.
func BenchmarkFastHitAltSvc(b *testing.B) {
	h, req, origin := benchCache(b, "bench-fast-alt-svc")
	req, alt := altSvcHit(b, h, req, origin)
	benchFastHit(b, h, req, []frontdoor.FieldAdder{alt})
}

func benchFastHit(b *testing.B, h *Handler, req *http.Request, adders []frontdoor.FieldAdder) {
	w := &discardWriter{h: make(http.Header, 16)}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		if !h.serveFast(w, req, 0, adders) {
			b.Fatal("not answered on the fast path")
		}
	}
}

// altSvcHit is req as it comes over TLS to the port of a running quic
// app, stored in h from origin, and a provisioned alt_svc, which
// advertises that port.
func altSvcHit(tb testing.TB, h *Handler, req *http.Request, origin caddyhttp.Handler) (*http.Request, *quicedge.AltSvc) {
	tb.Helper()
	site := testcaddy.NewSite(tb)
	testcaddy.Run(tb, tlsEdgeGlobals(testcaddy.FreePort(tb))+fmt.Sprintf(`https://localhost:%s {
	tls %s %s
	respond ok
}
`, site.Port, site.CertFile, site.KeyFile))
	port, _ := strconv.Atoi(site.Port)
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, net.Addr(local)))
	req.TLS = &tls.ConnectionState{} // an https URL: another key
	if err := h.ServeHTTP(&discardWriter{h: make(http.Header)}, req, origin); err != nil {
		tb.Fatal(err)
	}
	alt := &quicedge.AltSvc{}
	if err := alt.Provision(caddy.Context{}); err != nil {
		tb.Fatal(err)
	}
	hdr := make(http.Header)
	alt.AddFields(req, hdr)
	if want := `h3=":` + site.Port + `"; ma=86400`; hdr.Get("Alt-Svc") != want {
		tb.Fatalf("Alt-Svc %q, want %q", hdr.Get("Alt-Svc"), want)
	}
	return req, alt
}

// benchCache is a cache named name holding one 2 KiB response to req.
func benchCache(tb testing.TB, name string) (*Handler, *http.Request, caddyhttp.Handler) {
	h := &Handler{Name: name, MaxBytes: 64 << 20, MaxObjectBytes: 16 << 20, HeuristicMax: 3600, OriginTimeout: 1}
	store, err := openStore(h.Name, uint64(h.MaxBytes), "")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = closeStore(h.Name) })
	h.store, h.flights = store, store.flights
	body := strings.Repeat("x", 2<<10)
	origin := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Header().Set("Content-Type", "application/json")
		_, err := w.Write([]byte(body))
		return err
	})
	req := httptest.NewRequest(http.MethodGet, "http://edge.example/api/item?id=1", nil)
	if err := h.ServeHTTP(&discardWriter{h: make(http.Header)}, req, origin); err != nil {
		tb.Fatal(err)
	}
	return h, req, origin
}
