package clienttcp

import (
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/lastmile-edge/lastmile/internal/frontdoor"
	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// answeringFront is the HTTP/1.1 front of the edge's server listening on
// addr, warmed by a hit answered below net/http.
func answeringFront(tb testing.TB, addr string) frontdoor.HTTP1Answerer {
	tb.Helper()
	app, err := caddy.ActiveContext().App("http")
	if err != nil {
		tb.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(addr)
	for _, srv := range app.(*caddyhttp.App).Servers {
		if slices.ContainsFunc(srv.Listen, func(l string) bool { return strings.HasSuffix(l, ":"+port) }) {
			if front := frontdoor.HTTP1Front(srv); front != nil {
				return front
			}
		}
	}
	tb.Fatalf("no HTTP/1.1 front listens on %s", addr)
	return nil
}

// BenchmarkAnsweredHit is the CPU of one hit answered below net/http less
// its two system calls: the request parsed, judged and answered by the
// real edge's front, and its response head encoded.
func BenchmarkAnsweredHit(b *testing.B) {
	for _, c := range []struct{ name, raw string }{
		{"get", "GET /plain HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: bench\r\nAccept: */*\r\n\r\n"},
		{"head", "HEAD /plain HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: bench\r\nAccept: */*\r\n\r\n"},
		{"not-modified", "GET /plain HTTP/1.1\r\nHost: 127.0.0.1\r\nIf-None-Match: \"v1\"\r\n\r\n"},
		{"sniffed", "GET /untyped HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			answering, _, _ := hitsEdge(b)
			for _, path := range []string{"/plain", "/untyped"} {
				testcaddy.Eventually(b, 10*time.Second, "a hit on "+path, func() bool {
					req, _ := http.NewRequest(http.MethodGet, "http://"+answering+path, nil)
					req.Host = "127.0.0.1" // as the benchmark's requests name it: the key
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					return strings.HasPrefix(resp.Header.Get("Cache-Status"), "lastmile; hit")
				})
			}
			front := answeringFront(b, answering)
			st := hitStates.Get().(*hitState)
			raw := []byte(c.raw)
			b.ReportAllocs()
			for b.Loop() {
				if st.q.parseSimple(raw) == 0 {
					b.Fatal("not a simple request")
				}
				head, _, ok := st.answer(front, nil)
				if !ok {
					b.Fatal("not answered")
				}
				st.w.buf = head[:0]
			}
		})
	}
}
