package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/wtclient"
	"golang.org/x/net/http2"
)

// loadStats counts one protocol's requests under reload: a failure is a
// request the client sent that got no complete 200 response (a reset, a
// connection closed under it, a refused HTTP/2 stream, an error status).
type loadStats struct {
	ok, failed atomic.Int64
	mu         sync.Mutex
	firstErr   error
}

func (s *loadStats) fail(err error) {
	s.failed.Add(1)
	s.mu.Lock()
	if s.firstErr == nil {
		s.firstErr = err
	}
	s.mu.Unlock()
}

func (s *loadStats) String() string {
	return fmt.Sprintf("%d ok, %d failed (first: %v)", s.ok.Load(), s.failed.Load(), s.firstErr)
}

// Reloads are invisible to clients of every protocol: while HTTP/1.1
// keep-alive clients, HTTP/2 clients and a kept HTTP/3 connection with a
// WebTransport session run, the config is reloaded several times through
// the admin API, and no request fails. The clients do what wrk and h2load
// do, not what browsers do: they never retry a request, so a connection
// closed under a request counts as a failure.
func TestReloadUnderLoadDropsNothing(t *testing.T) {
	e := startEdge(t)
	const (
		h1Conns  = 8
		h2Conns  = 4
		h2Stream = 4 // concurrent requests per HTTP/2 connection
		reloads  = 6
		perStep  = 50 // requests of each protocol between two reloads
	)
	handedOver := e.counter(t, `lastmile_client_tcp_reload_connections_total{outcome="handed_over"}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var h1, h2, h3, wt loadStats
	var wg sync.WaitGroup
	for range h1Conns {
		wg.Go(func() { e.http1Load(ctx, &h1) })
	}
	for range h2Conns {
		wg.Go(func() { e.http2Load(ctx, h2Stream, &h2) })
	}
	h3c, _ := e.h3Client(t)
	wg.Go(func() {
		for ctx.Err() == nil {
			resp, err := h3c.Get(e.URL("/static/app.css"))
			countResponse(&h3, resp, err)
		}
	})
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	_, sess, err := e.wtDial(t, wctx, "/wt/echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.CloseWithError(0, "")
	wg.Go(func() {
		for i := 0; ctx.Err() == nil; i++ {
			msg := fmt.Appendf(nil, "echo %d", i)
			got, err := wtclient.EchoStream(wctx, sess, msg)
			switch {
			case err != nil:
				wt.fail(err)
			case !bytes.Equal(got, msg):
				wt.fail(fmt.Errorf("echo %q, got %q", msg, got))
			default:
				wt.ok.Add(1)
			}
		}
	})

	// Between reloads, every protocol completes requests on the config
	// of the moment (and on connections the last reload found).
	all := []*loadStats{&h1, &h2, &h3, &wt}
	progress := func() {
		t.Helper()
		base := make([]int64, len(all))
		for i, s := range all {
			base[i] = s.ok.Load()
		}
		waitForWithin(t, 10*time.Second, func() bool {
			for i, s := range all {
				if s.ok.Load() < base[i]+perStep {
					return false
				}
			}
			return true
		})
	}
	// Each reload changes the config (an unchanged one is not reloaded).
	for i := range reloads {
		progress()
		e.reload(t, strings.Replace(e.Caddyfile, "\talt_svc 24h\n", fmt.Sprintf("\talt_svc 24h\n\theader X-Config-Generation %d\n", i+2), 1))
	}
	progress()
	cancel()
	wg.Wait()
	t.Logf("HTTP/1.1: %v\nHTTP/2: %v\nHTTP/3: %v\nWebTransport: %v", &h1, &h2, &h3, &wt)
	for name, s := range map[string]*loadStats{"HTTP/1.1": &h1, "HTTP/2": &h2, "HTTP/3": &h3, "WebTransport": &wt} {
		if s.failed.Load() > 0 {
			t.Errorf("%s: %v", name, s)
		}
	}
	if handedOver.delta(t) == 0 {
		t.Error("no HTTP/1.1 connection was handed over to a new config")
	}
}

func countResponse(s *loadStats, resp *http.Response, err error) {
	if err != nil {
		s.fail(err)
		return
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	switch {
	case err != nil:
		s.fail(err)
	case resp.StatusCode != http.StatusOK:
		s.fail(fmt.Errorf("status %d", resp.StatusCode))
	default:
		s.ok.Add(1)
	}
}

// http1Load sends requests one after another on a kept HTTP/1.1
// connection, as wrk does, and opens a new connection only when the
// server announced that it closes this one (Connection: close).
func (e *testEdge) http1Load(ctx context.Context, s *loadStats) {
	req := []byte("GET /static/app.css HTTP/1.1\r\nHost: localhost\r\n\r\n")
	for ctx.Err() == nil {
		conn, err := tls.Dial("tcp", e.addr(), &tls.Config{RootCAs: e.CertPool, ServerName: "localhost", NextProtos: []string{"http/1.1"}})
		if err != nil {
			s.fail(err)
			continue
		}
		br := bufio.NewReader(conn)
		for n := 0; ctx.Err() == nil; n++ {
			if _, err := conn.Write(req); err != nil {
				s.fail(err)
				break
			}
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				err = fmt.Errorf("request %d on a connection: %w", n+1, err)
			}
			countResponse(s, resp, err)
			if err != nil || resp.Close {
				break
			}
		}
		conn.Close()
	}
}

// http2Load runs streams concurrent requests on one HTTP/2 connection, as
// h2load does, without retrying; it opens a new connection once the
// server has sent GOAWAY (which h2load does not do, so it would just
// stop there).
func (e *testEdge) http2Load(ctx context.Context, streams int, s *loadStats) {
	tr := &http2.Transport{}
	for ctx.Err() == nil {
		conn, err := tls.Dial("tcp", e.addr(), &tls.Config{RootCAs: e.CertPool, ServerName: "localhost", NextProtos: []string{"h2"}})
		if err != nil {
			s.fail(err)
			continue
		}
		cc, err := tr.NewClientConn(conn)
		if err != nil {
			s.fail(err)
			conn.Close()
			continue
		}
		var wg sync.WaitGroup
		for range streams {
			wg.Go(func() {
				for ctx.Err() == nil && cc.CanTakeNewRequest() {
					req, _ := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodGet, e.URL("/static/app.css"), nil)
					resp, err := cc.RoundTrip(req)
					if err != nil && !cc.CanTakeNewRequest() && strings.Contains(err.Error(), "client conn not usable") {
						return // refused by the client itself: not sent
					}
					countResponse(s, resp, err)
				}
			})
		}
		wg.Wait()
		cc.Close()
	}
}
