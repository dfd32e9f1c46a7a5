package httpcache

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// 200 concurrent requests for one uncached key reach the origin once, and
// every one gets the whole response as it streams.
func TestCoalescing200Concurrent(t *testing.T) {
	o := newOrigin(t)
	body := strings.Repeat("0123456789", 20000) // 200 KB, streamed in pieces
	rest := make(chan struct{})
	o.handle("/hot", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		for i := 0; i < len(body); i += 50000 {
			w.Write([]byte(body[i : i+50000]))
			w.(http.Flusher).Flush()
			if i == 0 {
				<-rest // the rest comes once every request waits mid-stream
			}
		}
	})
	e := startCache(t, o, "")
	release := opener(t, rest)
	awaitWaiters := e.waitersSince(t)
	var wg sync.WaitGroup
	var collapsed atomic.Int64
	for range 200 {
		wg.Go(func() {
			r := e.get(t, "/hot")
			if r.status != 200 || r.body != body {
				t.Errorf("status %d, %d of %d bytes", r.status, len(r.body), len(body))
			}
			if strings.Contains(r.cacheStatus(), "collapsed") {
				collapsed.Add(1)
			}
		})
	}
	awaitWaiters(199)
	release()
	wg.Wait()
	if got := o.count("/hot"); got != 1 {
		t.Fatalf("origin saw %d requests, want 1", got)
	}
	if got := collapsed.Load(); got != 199 {
		t.Fatalf("%d requests say they were collapsed, want 199", got)
	}
}

// A failed fetch fails its waiters with the same error and leaves nothing
// in the store; the next request tries the origin again.
func TestFailedFetchDoesNotPoison(t *testing.T) {
	o := newOrigin(t)
	var fail atomic.Bool
	fail.Store(true)
	held := newFirstHeld()
	o.handle("/flaky", func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			held.hold()
			// Break the connection: reverse_proxy reports a 502.
			hj, _ := w.(http.Hijacker)
			c, _, _ := hj.Hijack()
			c.Close()
			return
		}
		w.Header().Set("Cache-Control", "max-age=60")
		w.Write([]byte("fine"))
	})
	e := startCache(t, o, "")
	e.coalesced(t, held.gate, 10, func() {
		if r := e.get(t, "/flaky"); r.status != http.StatusBadGateway {
			t.Errorf("waiter got %d %q, want 502", r.status, r.body)
		}
	})
	if got := o.count("/flaky"); got != 1 {
		t.Fatalf("origin saw %d requests, want 1", got)
	}
	fail.Store(false)
	if r := e.get(t, "/flaky"); r.status != 200 || r.body != "fine" {
		t.Fatalf("after the failure: %d %q", r.status, r.body)
	}
}

// Waiters whose response turns out not to be theirs fetch their own: one
// that may not be shared, or one that varies on a field they send
// otherwise than the request that fetched it (RFC 9111 section 4.1).
func TestWaitersFetchTheirOwn(t *testing.T) {
	for _, tc := range []struct {
		name       string
		header     []string
		field      string
		values     []string // the first leads; the others wait for it
		wantOrigin int64
	}{
		{"not shareable", []string{"Cache-Control", "private"}, "X-User", []string{"a", "b", "c", "d", "e"}, 5},
		{"another variant", []string{"Cache-Control", "max-age=60", "Vary", "X-Variant"}, "X-Variant", []string{"a", "b", "c", "a"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newOrigin(t)
			held := newFirstHeld()
			o.handle("/p", func(w http.ResponseWriter, r *http.Request) {
				held.hold()
				for i := 0; i+1 < len(tc.header); i += 2 {
					w.Header().Set(tc.header[i], tc.header[i+1])
				}
				w.Write([]byte("for " + r.Header.Get(tc.field)))
			})
			e := startCache(t, o, "")
			release := opener(t, held.gate)
			awaitWaiters := e.waitersSince(t)
			var wg sync.WaitGroup
			for i, v := range tc.values {
				wg.Go(func() {
					if r := e.get(t, "/p", tc.field, v); r.body != "for "+v {
						t.Errorf("%s %s got %q (%s)", tc.field, v, r.body, r.cacheStatus())
					}
				})
				if i == 0 {
					eventually(t, "the first fetch to reach the origin", func() bool { return o.count("/p") == 1 })
				}
			}
			awaitWaiters(len(tc.values) - 1)
			release()
			wg.Wait()
			if got := o.count("/p"); got != tc.wantOrigin {
				t.Fatalf("origin saw %d requests, want %d", got, tc.wantOrigin)
			}
		})
	}
}

// A miss whose store lookup ran just before another fetch of the key
// stored its response and ended finds that response when it joins the
// flights, instead of fetching the key again (two edges behind a shield
// fetched an object twice under load).
func TestMissAfterAnotherFetchStoredServesTheEntry(t *testing.T) {
	h, req, _ := benchCache(t, "miss-after-store")
	d := h.decide(req) // what the store holds now: the stored response
	if d.verdict != verdictFresh {
		t.Fatalf("verdict %v after the first fetch, want fresh", d.verdict)
	}
	var fetched atomic.Int64
	origin := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		fetched.Add(1)
		return nil
	})
	// The miss as it runs when its lookup came before that store.
	w := httptest.NewRecorder()
	if err := h.miss(w, req, origin, &cacheStatus{name: h.statusItem}, d.primary, d.key, ""); err != nil {
		t.Fatal(err)
	}
	if n := fetched.Load(); n != 0 {
		t.Fatalf("the origin was asked %d times for a stored key", n)
	}
	if w.Body.Len() != 2<<10 || !strings.Contains(w.Header().Get("Cache-Status"), "hit") {
		t.Fatalf("answered %d bytes, Cache-Status %q; want the stored 2 KiB as a hit", w.Body.Len(), w.Header().Get("Cache-Status"))
	}
	if _, running := h.flights.m[d.key]; running {
		t.Fatal("the flight is left in the table")
	}
}
