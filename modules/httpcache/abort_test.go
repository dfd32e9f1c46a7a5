package httpcache

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// breakMidBody answers with headers and the start of a body, then closes
// the connection: reverse_proxy then aborts the response with
// http.ErrAbortHandler, a panic.
func breakMidBody(t *testing.T, w http.ResponseWriter) {
	w.Header().Set("Content-Length", strconv.Itoa(4096))
	w.WriteHeader(http.StatusOK)
	w.Write(make([]byte, 100))
	w.(http.Flusher).Flush()
	c, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Error(err)
		return
	}
	c.Close()
}

// A background refresh whose origin breaks off its body does not take the
// edge down (net/http recovers only its own goroutines): the stale entry
// keeps answering, and the next refresh stores the new response.
func TestBackgroundRefreshWhoseBodyBreaksOff(t *testing.T) {
	o := newOrigin(t)
	var broken atomic.Bool
	o.handle("/swr", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=1, stale-while-revalidate=30")
		if broken.Load() {
			breakMidBody(t, w)
			return
		}
		w.Write([]byte("whole"))
	})
	e, clock := startCacheWithFakeClock(t, o, "")
	e.get(t, "/swr")
	broken.Store(true)
	clock.advance(2 * time.Second)
	if r := e.get(t, "/swr"); r.body != "whole" {
		t.Fatalf("stale answer %q", r.body)
	}
	awaitIdle(t, "default")
	if n := o.count("/swr"); n != 2 {
		t.Fatalf("origin asked %d times, want 2 (the broken refresh)", n)
	}
	broken.Store(false)
	if r := e.get(t, "/swr"); r.body != "whole" {
		t.Fatalf("stale answer after the broken refresh %q", r.body)
	}
	awaitIdle(t, "default")
	wantHit(t, e.get(t, "/swr"))
}

// Requests coalesced onto a fetch whose origin breaks off the body fail at
// once, as the fetching client does, instead of waiting for a body that
// will not come until their clients give up.
func TestWaitersOfAFetchWhoseBodyBreaksOffFail(t *testing.T) {
	o := newOrigin(t)
	held := newFirstHeld()
	o.handle("/partial", func(w http.ResponseWriter, r *http.Request) {
		held.hold()
		w.Header().Set("Cache-Control", "max-age=60")
		breakMidBody(t, w)
	})
	e := startCache(t, o, "")
	e.coalesced(t, held.gate, 10, func() {
		resp, err := e.client.Get(e.base + "/partial")
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		var ne net.Error
		switch {
		case err == nil:
			t.Error("a broken body reached a client as whole")
		case errors.As(err, &ne) && ne.Timeout():
			t.Errorf("the client gave up waiting: %v", err)
		}
	})
	awaitIdle(t, "default")
}
