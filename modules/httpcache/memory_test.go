package httpcache

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// Under a flood of unique keys and of huge bodies the store stays within
// its byte budget, and so does the process's heap.
func TestMemoryStaysWithinBudget(t *testing.T) {
	o := newOrigin(t)
	small := strings.Repeat("s", 4<<10)
	big := strings.Repeat("B", 3<<20)
	o.handle("/u/", func(w http.ResponseWriter, r *http.Request) {})
	o.handle("/small", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		w.Write([]byte(small))
	})
	o.handle("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		w.Write([]byte(big))
	})
	const budget = 8 << 20
	e := startCache(t, o, "max_bytes 8MiB\n\t\tmax_object_bytes 4MiB")
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range 4000 {
		e.get(t, fmt.Sprintf("/small?u=%d", i)) // 16 MB of unique keys
	}
	for i := range 12 {
		e.get(t, fmt.Sprintf("/big?u=%d", i)) // 36 MB of huge bodies
	}
	store, _ := lookupStore("default")
	entries, used := store.Usage()
	if used > budget {
		t.Fatalf("store holds %d bytes, budget %d", used, budget)
	}
	if entries == 0 {
		t.Fatal("nothing stored")
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 3*budget {
		t.Fatalf("heap grew by %d bytes for an %d-byte budget", grown, budget)
	}
	t.Logf("%d entries, %d bytes stored; heap %d -> %d", entries, used, before.HeapAlloc, after.HeapAlloc)
}

// Bodies above max_object_bytes stream through, whole, and are not stored.
func TestLargeBodiesStreamedNotStored(t *testing.T) {
	o := newOrigin(t)
	big := strings.Repeat("L", 2<<20)
	o.handle("/large", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		for i := 0; i < len(big); i += 64 << 10 {
			w.Write([]byte(big[i : i+64<<10])) // no Content-Length: chunked
		}
	})
	e := startCache(t, o, "max_object_bytes 1MiB")
	for range 2 {
		r := e.get(t, "/large")
		if len(r.body) != len(big) {
			t.Fatalf("got %d bytes, want %d", len(r.body), len(big))
		}
		wantMiss(t, r)
	}
}
