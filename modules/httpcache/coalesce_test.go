package httpcache

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
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
	coalesced := e.metric(t, "lastmile_cache_coalesced_total")
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
	eventually(t, "199 requests to join the first one's fetch", func() bool {
		return e.metric(t, "lastmile_cache_coalesced_total")-coalesced == 199
	})
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
	joined := make(chan struct{})
	o.handle("/flaky", func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			<-joined
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
	release := opener(t, joined)
	coalesced := e.metric(t, "lastmile_cache_coalesced_total")
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			if r := e.get(t, "/flaky"); r.status != http.StatusBadGateway {
				t.Errorf("waiter got %d %q, want 502", r.status, r.body)
			}
		})
	}
	eventually(t, "9 requests to join the first one's fetch", func() bool {
		return e.metric(t, "lastmile_cache_coalesced_total")-coalesced == 9
	})
	release()
	wg.Wait()
	if got := o.count("/flaky"); got != 1 {
		t.Fatalf("origin saw %d requests, want 1", got)
	}
	fail.Store(false)
	if r := e.get(t, "/flaky"); r.status != 200 || r.body != "fine" {
		t.Fatalf("after the failure: %d %q", r.status, r.body)
	}
}

// A response that turns out not shareable releases the waiters: each gets
// its own response from the origin.
func TestUncacheableReleasesWaiters(t *testing.T) {
	o := newOrigin(t)
	var first atomic.Bool
	joined := make(chan struct{})
	o.handle("/mine", func(w http.ResponseWriter, r *http.Request) {
		if first.CompareAndSwap(false, true) {
			<-joined
		}
		w.Header().Set("Cache-Control", "private")
		w.Write([]byte("for " + r.Header.Get("X-User")))
	})
	e := startCache(t, o, "")
	release := opener(t, joined)
	coalesced := e.metric(t, "lastmile_cache_coalesced_total")
	var wg sync.WaitGroup
	for _, user := range []string{"a", "b", "c", "d", "e"} {
		wg.Go(func() {
			if r := e.get(t, "/mine", "X-User", user); r.body != "for "+user {
				t.Errorf("user %s got %q", user, r.body)
			}
		})
	}
	eventually(t, "4 requests to join the first one's fetch", func() bool {
		return e.metric(t, "lastmile_cache_coalesced_total")-coalesced == 4
	})
	release()
	wg.Wait()
	if got := o.count("/mine"); got != 5 {
		t.Fatalf("origin saw %d requests, want 5", got)
	}
}
