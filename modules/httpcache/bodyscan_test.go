package httpcache

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	runtimemetrics "runtime/metrics"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// Stored bodies are pointer-free memory: the garbage collector marks them
// but never scans their bytes, so a large, long-lived store costs each GC
// cycle its entries' fields and index, not its bodies. Filling a store
// with 32 MiB of bodies must grow the heap the GC scans by a small part
// of that (the headers, the entry structs, otter's nodes).
func TestStoredBodiesAreNotScanned(t *testing.T) {
	const entries, bodySize = 1024, 32 << 10
	h := &Handler{Name: "body-scan", MaxBytes: 256 << 20, MaxObjectBytes: 1 << 20, HeuristicMax: 3600, OriginTimeout: 1}
	store, err := openStore(h.Name, uint64(h.MaxBytes), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = closeStore(h.Name) })
	h.store, h.flights = store, store.flights
	body := []byte(strings.Repeat("b", bodySize))
	origin := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, err := w.Write(body)
		return err
	})
	scannable := func() uint64 {
		s := []runtimemetrics.Sample{{Name: "/gc/scan/heap:bytes"}}
		runtime.GC()
		runtimemetrics.Read(s)
		return s[0].Value.Uint64()
	}
	request := func(i int) *http.Request {
		return httptest.NewRequest(http.MethodGet, "http://edge.example/obj/"+strconv.Itoa(i), nil)
	}
	before := scannable()
	for i := range entries {
		if err := h.ServeHTTP(&discardWriter{h: make(http.Header)}, request(i), origin); err != nil {
			t.Fatal(err)
		}
	}
	grown := int64(scannable()) - int64(before)
	// The bodies are still held: every one is a hit.
	for _, i := range []int{0, entries / 2, entries - 1} {
		w := &discardWriter{h: make(http.Header)}
		if !h.serveFast(w, request(i), 0, nil) {
			t.Fatalf("/obj/%d is not a stored hit", i)
		}
	}
	if stored := int64(entries * bodySize); grown > stored/8 {
		t.Fatalf("storing %d MiB of bodies grew the scannable heap by %d KiB: want under an eighth of it", stored>>20, grown>>10)
	}
	t.Logf("%d MiB of stored bodies, scannable heap grew by %d KiB", entries*bodySize>>20, grown>>10)
}
