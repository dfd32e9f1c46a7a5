package httpcache

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// discardWriter is a ResponseWriter that keeps nothing, so the benchmark
// measures the cache, not a recorder.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}

// BenchmarkHit is the hit path: lookup, freshness, headers, body. Its
// allocations must not grow with the body: compare the sizes.
func BenchmarkHit(b *testing.B) {
	for _, size := range []int{2 << 10, 256 << 10} {
		b.Run(strconv.Itoa(size>>10)+"KiB", func(b *testing.B) {
			h := &Handler{Name: "bench-" + strconv.Itoa(size)}
			h.MaxBytes = 64 << 20
			h.MaxObjectBytes = 16 << 20
			h.HeuristicMax = 3600
			h.OriginTimeout = 1
			store, err := openStore(h.Name, uint64(h.MaxBytes), "")
			if err != nil {
				b.Fatal(err)
			}
			defer closeStore(h.Name)
			h.store, h.flights = store, store.flights
			body := strings.Repeat("x", size)
			origin := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
				w.Header().Set("Cache-Control", "max-age=3600")
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Length", strconv.Itoa(size))
				_, err := w.Write([]byte(body))
				return err
			})
			req := httptest.NewRequest(http.MethodGet, "http://edge.example/api/item?id=1", nil)
			req.Header.Set("Accept-Encoding", "gzip")
			if err := h.ServeHTTP(&discardWriter{h: make(http.Header)}, req, origin); err != nil {
				b.Fatal(err)
			}
			if n, _ := store.Usage(); n != 1 {
				b.Fatalf("the miss stored %d entries, want 1", n) // stored before ServeHTTP returns
			}
			w := &discardWriter{h: make(http.Header, 16)}
			b.ReportAllocs()
			b.SetBytes(int64(size))
			b.ResetTimer()
			for b.Loop() {
				clear(w.h)
				if err := h.ServeHTTP(w, req, origin); err != nil {
					b.Fatal(err)
				}
			}
			if !strings.Contains(w.h.Get("Cache-Status"), "hit") {
				b.Fatalf("not a hit: %q", w.h.Get("Cache-Status"))
			}
		})
	}
}
