package httpcache

import (
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
)

// Variants are told apart by the fields Vary names, with their values
// normalised; Vary: * is never served from the store.
func TestVary(t *testing.T) {
	o := newOrigin(t)
	o.handle("/v", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("Vary", "Accept-Encoding, Accept-Language")
		w.Write([]byte("lang=" + r.Header.Get("Accept-Language") + " enc=" + r.Header.Get("Accept-Encoding")))
	})
	o.respond("/star", 200, "Cache-Control", "max-age=60", "Vary", "*")
	e := startCache(t, o, "")
	de := e.get(t, "/v", "Accept-Language", "de", "Accept-Encoding", "gzip, br")
	fr := e.get(t, "/v", "Accept-Language", "fr", "Accept-Encoding", "gzip, br")
	if de.body == fr.body {
		t.Fatal("two languages got one variant")
	}
	// Same meaning, other spelling: the stored variant.
	r := e.get(t, "/v", "Accept-Language", "de", "Accept-Encoding", "BR,gzip")
	wantHit(t, r)
	if r.body != de.body {
		t.Fatalf("got %q, want %q", r.body, de.body)
	}
	r = e.get(t, "/v", "Accept-Language", "fr", "Accept-Encoding", "gzip,  br")
	wantHit(t, r)
	if r.body != fr.body {
		t.Fatalf("got %q, want %q", r.body, fr.body)
	}
	wantMiss(t, e.get(t, "/v", "Accept-Language", "it", "Accept-Encoding", "gzip"))
	if o.count("/v") != 3 {
		t.Fatalf("origin saw %d, want 3", o.count("/v"))
	}
	e.get(t, "/star")
	wantMiss(t, e.get(t, "/star"))
}

// Requests that wait for a fetch whose response turns out to vary get it
// only if they select the same variant (RFC 9111 section 4.1); the others
// fetch their own.
func TestCoalescedWaitersGetTheirVariant(t *testing.T) {
	o := newOrigin(t)
	var first atomic.Bool
	joined := make(chan struct{})
	o.handle("/v", func(w http.ResponseWriter, r *http.Request) {
		if first.CompareAndSwap(false, true) {
			<-joined
		}
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("Vary", "X-Variant")
		w.Write([]byte("for " + r.Header.Get("X-Variant")))
	})
	e := startCache(t, o, "")
	release := opener(t, joined)
	coalesced := e.metric(t, "lastmile_cache_coalesced_total")
	var wg sync.WaitGroup
	get := func(variant string) {
		wg.Go(func() {
			if r := e.get(t, "/v", "X-Variant", variant); r.body != "for "+variant {
				t.Errorf("variant %s got %q (%s)", variant, r.body, r.cacheStatus())
			}
		})
	}
	get("a") // leads
	eventually(t, "the first fetch to reach the origin", func() bool { return o.count("/v") == 1 })
	for _, v := range []string{"b", "c", "a"} {
		get(v)
	}
	eventually(t, "3 requests to join the first one's fetch", func() bool {
		return e.metric(t, "lastmile_cache_coalesced_total")-coalesced == 3
	})
	release()
	wg.Wait()
	if got := o.count("/v"); got != 3 {
		t.Fatalf("origin saw %d requests, want 3 (a, then b and c on their own)", got)
	}
}
