package httpcache

import (
	"net/http"
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
