package httpcache

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	"github.com/quic-go/quic-go/http3"
)

// BenchmarkHTTP3Hit is the peer bench's HTTP/3 hit in one process: a real
// edge (the quic app, edge_cache, reverse_proxy) holding 100 responses of
// 2 KB with the bench origin's fields, and quic-go's client asking for
// them over one connection with 32 requests in flight. Both sides' costs
// are in ns/op and allocs/op; the edge's alone are in its CPU profile.
func BenchmarkHTTP3Hit(b *testing.B) { benchmarkHTTP3Hit(b, nil) }

// BenchmarkHTTP3HitTable is BenchmarkHTTP3Hit with a client that offers a
// QPACK dynamic table of 64 KiB, as browsers do (Chromium): the edge
// encodes each hit's head against the connection's table.
func BenchmarkHTTP3HitTable(b *testing.B) {
	benchmarkHTTP3Hit(b, map[uint64]uint64{settingQPACKMaxTableCapacity: 64 << 10})
}

func benchmarkHTTP3Hit(b *testing.B, settings map[uint64]uint64) {
	const keys = 100
	body := strings.Repeat("x", 2<<10)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=86400")
		_, _ = io.WriteString(w, body)
	}))
	b.Cleanup(origin.Close)
	site := testcaddy.NewSite(b)
	testcaddy.Run(b, tlsEdgeGlobals(testcaddy.FreePort(b))+fmt.Sprintf(`https://localhost:%s {
	tls %s %s
	edge_cache
	reverse_proxy %s
}
`, site.Port, site.CertFile, site.KeyFile, hostPort(origin.URL)))
	client := site.H3Client(b, nil)
	client.Transport.(*http3.Transport).AdditionalSettings = settings
	get := func(i int) error {
		resp, err := client.Get(site.URL(fmt.Sprintf("/item?id=%d", i%keys)))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		n, err := io.Copy(io.Discard, resp.Body)
		if err == nil && (resp.StatusCode != http.StatusOK || n != int64(len(body))) {
			err = fmt.Errorf("status %d, %d bytes", resp.StatusCode, n)
		}
		return err
	}
	for i := range keys {
		if err := get(i); err != nil {
			b.Fatal(err)
		}
	}
	b.SetParallelism(max(1, 32/runtime.GOMAXPROCS(0))) // 32 requests in flight, as in the peer bench
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for i := 0; pb.Next(); i++ {
			if err := get(i); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
