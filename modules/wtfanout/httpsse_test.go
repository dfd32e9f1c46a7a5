package wtfanout

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// The same channel as plain SSE on the fan-out path, over HTTP/1.1,
// HTTP/2 and HTTP/3, sharing the origin stream with WebTransport.
func TestPlainSSEOnTheSamePath(t *testing.T) {
	o, site, ctx := fixture(t, "replay 2")
	wt := dialFanout(t, ctx, site).subscribe(ctx, "news", "")
	testcaddy.Eventually(t, 5*time.Second, "the origin serving the channel", func() bool { return o.open("news") == 1 })
	o.emitN("news", 3)
	wt.expect("1", "2", "3")

	h1 := &http.Client{Transport: &http.Transport{TLSClientConfig: site.TLSConfig()}}
	h2 := &http.Client{Transport: &http2.Transport{TLSClientConfig: site.TLSConfig()}}
	h3 := site.H3Client(t, nil)
	for _, tc := range []struct {
		proto  string
		client *http.Client
	}{{"HTTP/1.1", h1}, {"HTTP/2.0", h2}, {"HTTP/3.0", h3}} {
		t.Run(tc.proto, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, site.URL("/live?channel=news"), nil)
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set("Last-Event-ID", "2")
			resp, err := tc.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.Proto != tc.proto || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("%s %d %q", resp.Proto, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			r := bufio.NewReader(resp.Body)
			want := "id: 3\nevent: update\ndata: event 3\n\n"
			got := make([]byte, len(want))
			if _, err := readFull(r, got); err != nil || string(got) != want {
				t.Fatalf("replay: %q, %v; want %q", got, err, want)
			}
		})
	}
	if n := o.requestCount("news"); n != 1 {
		t.Fatalf("origin requests = %d, want 1", n)
	}

	// Refusals are statuses.
	for path, want := range map[string]int{"/live?channel=bad%20name": 400, "/live?channel=missing-x": 0} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, site.URL(path), nil)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := h1.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if want != 0 && resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, resp.StatusCode, want)
		}
		if want == 0 { // learnt from the origin: an error event, then 404 on the next try
			body := make([]byte, 64)
			n, _ := readFull(bufio.NewReader(resp.Body), body[:len("event: lastmile-error\n")])
			if !strings.HasPrefix(string(body[:n]), "event: lastmile-error") {
				t.Errorf("%s: %q", path, body[:n])
			}
		}
		resp.Body.Close()
	}
}

func readFull(r *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// The end of a subscription interrupts the write in progress and then
// writes the closing notice: the notice still reaches a client that
// reads, whichever of the two comes first.
func TestEndNoticeFollowsTheInterrupt(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		d := &sseDeliverer{w: w, rc: http.NewResponseController(w)}
		defer d.finish()
		d.interrupt()
		d.end(codeUnknownChannel)
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if want := "event: lastmile-error\ndata: {\"code\":\"unknown_channel\"}\n\n"; err != nil || string(body) != want {
		t.Fatalf("body %q, %v; want %q", body, err, want)
	}
}
