package httpcache

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/demoorigin"
	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	"github.com/lastmile-edge/lastmile/internal/testcert"
	_ "github.com/lastmile-edge/lastmile/modules/clienttcp" // client_tcp: HTTP/1.1 hits below net/http
)

// The network lab's page (internal/demoorigin: s-maxage=1,
// stale-while-revalidate=10) behind the edge configured as the lab runs it
// (client_tcp answering HTTP/1.1 hits, HTTP/2, HTTP/3, alt_svc), its origin
// 100 ms away by the store's clock. Within the window every protocol gets
// the stale page at once while one revalidation runs, however many arrive
// while it is in flight; past it, the requests wait for one fetch. The
// origin's whole-second Date makes a page that arrives just after a second
// turns one second old, stale as it is stored: the window then ends 10 s
// after it arrived, not 11 s.
func TestLabPageStaleWhileRevalidateWindow(t *testing.T) {
	o := newOrigin(t)
	demo := demoorigin.New()
	var clock *fakeClock
	var gate atomic.Pointer[chan struct{}]
	var rendered atomic.Pointer[string]
	o.handle("/page/1", func(w http.ResponseWriter, r *http.Request) {
		if g := gate.Load(); g != nil {
			<-*g // held until the test has seen what the edge does meanwhile
		}
		w.Header().Set("Date", clock.Now().UTC().Format(http.TimeFormat))
		clock.advance(100 * time.Millisecond) // the backbone's round trip
		rec := httptest.NewRecorder()
		demo.ServeHTTP(rec, r)
		copyHeader(w.Header(), rec.Header())
		w.WriteHeader(rec.Code)
		body := rec.Body.String()
		rendered.Store(&body)
		w.Write(rec.Body.Bytes())
	})
	edge := startLabEdge(t, hostPort(o.URL))
	metrics := &testEdge{admin: edge.admin}
	clock = useFakeClock(t, "default", o)

	// Stored 0.95 s into a second: Date names that second, the page
	// arrives in the next, one second old.
	clock.advance((1950*time.Millisecond - time.Duration(clock.Now().Nanosecond())) % time.Second)
	if r, err := edge.fetch("h1", "/page/1"); err != nil || r.status != http.StatusOK {
		t.Fatalf("first request: %v %+v", err, r)
	}
	stored := *rendered.Load()
	for _, round := range []struct {
		after time.Duration // since the stored page arrived
		stale bool          // within stale-while-revalidate
	}{
		{900 * time.Millisecond, true}, {9900 * time.Millisecond, true}, {10900 * time.Millisecond, false},
	} {
		clock.advance(round.after) // to 0.95 s into a second again
		fetched := o.count("/page/1")
		held := make(chan struct{})
		gate.Store(&held)
		release := opener(t, held)
		awaitWaiters := metrics.waitersSince(t)
		results := make(chan labResult, 3*len(protocols))
		var wg sync.WaitGroup
		for _, p := range protocols {
			for range 3 {
				wg.Go(func() {
					r, err := edge.fetch(p.name, "/page/1")
					results <- labResult{p.proto, r, err}
				})
			}
		}
		if round.stale {
			// Answered while the revalidation is held at the origin.
			if !waitDone(&wg, 5*time.Second) {
				t.Fatalf("%v after the page arrived: a request waited for the origin's revalidation", round.after)
			}
			eventually(t, "the background revalidation to reach the origin", func() bool { return o.count("/page/1") == fetched+1 })
		} else {
			awaitWaiters(3*len(protocols) - 1)
		}
		release()
		wg.Wait()
		awaitIdle(t, "default")
		close(results)
		want := stored
		if !round.stale {
			want = *rendered.Load()
		}
		for res := range results {
			if res.err != nil {
				t.Fatalf("%v after the page arrived: %v", round.after, res.err)
			}
			cs := res.r.cacheStatus()
			switch {
			case res.r.proto != res.proto:
				t.Errorf("spoke %s, want %s", res.r.proto, res.proto)
			case res.r.body != want:
				t.Errorf("%v after the page arrived, %s: not the %s page; Cache-Status %q", round.after, res.proto, map[bool]string{true: "stored", false: "revalidated"}[round.stale], cs)
			case round.stale && !strings.Contains(cs, "; hit") || round.stale && !strings.Contains(cs, "detail=stale-while-revalidate"):
				t.Errorf("%v after the page arrived, %s: Cache-Status %q, want a stale-while-revalidate hit", round.after, res.proto, cs)
			case !round.stale && !strings.Contains(cs, "fwd=stale"):
				t.Errorf("%v after the page arrived, %s: Cache-Status %q, want a revalidation", round.after, res.proto, cs)
			}
		}
		if got := o.count("/page/1") - fetched; got != 1 {
			t.Fatalf("%v after the page arrived: the origin saw %d requests, want 1", round.after, got)
		}
		// The revalidated page arrived 0.95 s into a second: one second
		// old, as the first.
		stored = *rendered.Load()
	}
}

// startLabEdge runs the edge as loadtest/cmd/netlab's viaEdge does.
func startLabEdge(t *testing.T, origin string) *tlsEdge {
	t.Helper()
	c := testcert.Write(t)
	port, adminPort := testcaddy.FreeTCPAndUDPPort(t), testcaddy.FreePort(t)
	testcaddy.Run(t, fmt.Sprintf(`{
	admin 127.0.0.1:%s
	auto_https off
	persist_config off
	servers {
		protocols h1 h2
		listener_wrappers {
			client_tcp
		}
	}
	quic
}
https://localhost:%s {
	tls %s %s
	alt_svc
	edge_cache
	reverse_proxy %s
}
`, adminPort, port, c.CertFile, c.KeyFile, origin))
	return newTLSEdge(t, port, "http://127.0.0.1:"+adminPort, c.Pool)
}

type labResult struct {
	proto string
	r     labResponse
	err   error
}

type labResponse struct {
	result
	proto string
}

// fetch is get for other goroutines than the test's: it returns what
// went wrong.
func (e *tlsEdge) fetch(protocol, target string) (labResponse, error) {
	resp, err := e.clients[protocol].Get("https://localhost:" + e.port + target)
	if err != nil {
		return labResponse{}, fmt.Errorf("%s GET %s: %w", protocol, target, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return labResponse{}, fmt.Errorf("%s GET %s: body: %w", protocol, target, err)
	}
	return labResponse{result{resp.StatusCode, resp.Header, string(body)}, resp.Proto}, nil
}

// waitDone reports whether wg is done within d.
func waitDone(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}
