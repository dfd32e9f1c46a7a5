package clienttcp

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/lastmile-edge/lastmile/internal/requestmetric"
	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// countedSince returns how much a process-wide counter grew since
// countedSince was called.
func countedSince(t *testing.T, c prometheus.Counter) func() float64 {
	t.Helper()
	base := counterValue(t, c)
	return func() float64 { return counterValue(t, c) - base }
}

// runWrappedServer runs Caddy with client_tcp on a cleartext server that
// speaks HTTP/1.1 and HTTP/2 (h2c, prior knowledge) with handler as its
// site's, and returns its address.
func runWrappedServer(t *testing.T, handler string) string {
	port := testcaddy.FreePort(t)
	testcaddy.Run(t, `{
	admin off
	servers {
		protocols h1 h2c
		listener_wrappers {
			client_tcp
		}
	}
}
http://127.0.0.1:`+port+` {
	`+handler+`
}
`)
	return "127.0.0.1:" + port
}

// runCountingServer runs a wrapped server that echoes request bodies.
func runCountingServer(t *testing.T) string {
	return runWrappedServer(t, `respond "{http.request.body}"`)
}

// h2cTransport speaks HTTP/2 with prior knowledge to addr.
func h2cTransport(addr string) *http.Transport {
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	return tr
}

// Every HTTP/1.1 request on a connection is counted once, as the server
// reads it: pipelined, with bodies that look like requests, chunked with
// trailers, asking for an upgrade the server does not make.
func TestHTTP1RequestsCounted(t *testing.T) {
	addr := runCountingServer(t)
	h1 := countedSince(t, requestmetric.HTTP1)
	lookalike := "GET /not-a-request HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
	reqs := []string{
		"GET /1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
		"POST /2 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + strconv.Itoa(len(lookalike)) + "\r\n\r\n" + lookalike,
		"POST /3 HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n" +
			strconv.FormatInt(int64(len(lookalike)), 16) + "\r\n" + lookalike + "\r\n0\r\nX-Sum: 1\r\n\r\n",
		"GET /4 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
		"GET /5 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Pipelined: the server reads several requests at a time.
	if _, err := io.WriteString(c, strings.Join(reqs, "")); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	for i := range reqs {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("response %d: %v", i+1, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("response %d: status %d", i+1, resp.StatusCode)
		}
	}
	if got := h1(); got != float64(len(reqs)) {
		t.Fatalf("h1 requests grew by %v, want %d", got, len(reqs))
	}
}

// Every HTTP/2 request is counted once: a stream's trailers are not a
// request of their own.
func TestHTTP2RequestsCounted(t *testing.T) {
	addr := runCountingServer(t)
	h2 := countedSince(t, requestmetric.HTTP2)
	tr := h2cTransport(addr)
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	send := func(req *http.Request) {
		t.Helper()
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.ProtoMajor != 2 || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s %d", resp.Proto, resp.StatusCode)
		}
	}
	send(must(http.NewRequest("GET", "http://127.0.0.1/1", nil)))
	withTrailer := must(http.NewRequest("POST", "http://127.0.0.1/2", io.MultiReader(strings.NewReader("a"), strings.NewReader("b"))))
	withTrailer.Trailer = http.Header{"X-Sum": {"1"}}
	send(withTrailer)
	send(must(http.NewRequest("GET", "http://127.0.0.1/3", nil)))
	if got := h2(); got != 3 {
		t.Fatalf("h2 requests grew by %v, want 3", got)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
