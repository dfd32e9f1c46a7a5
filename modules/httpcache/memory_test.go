package httpcache

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Memory bounds under a flood, stated so the test holds the edge to them:
// the store's charged bytes never exceed max_bytes (otter enforces the
// weight at each write), and the process's live heap grows by at most
// twice max_bytes plus heapSlack, its RSS by twice max_bytes plus
// rssSlack, whatever the number of keys or variants and whichever
// protocol brought them. Measured (docs/CONFIGURATION.md, max_bytes):
// the heap grows by 1.5 to 2.2 times the budget, the RSS by 14 to 21 MiB
// for a 4 MiB budget.
const (
	floodBudget = 4 << 20
	// heapSlack covers what the charge does not see (otter's nodes and
	// sketch, map buckets) and what the flood's first requests allocate
	// once: connections, TLS and QUIC state, both ends of them.
	heapSlack = 8 << 20
	// rssSlack adds goroutine stacks and the runtime's own memory.
	rssSlack = 32 << 20
)

// A flood of unique keys, of Vary variants of one key and of bodies
// larger than max_object_bytes keeps the store within max_bytes, and the
// process's heap and RSS bounded, over HTTP/1.1 and HTTP/3.
func TestMemoryBoundedUnderFlood(t *testing.T) {
	o := newOrigin(t)
	body := strings.Repeat("s", 4<<10)
	big := strings.Repeat("B", 3<<20)
	o.handle("/u", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		w.Header().Set("Surrogate-Key", "u"+r.URL.RawQuery) // one tag per key: the tag index must shrink too
		// No Content-Length: the body is buffered by appends, whose
		// spare capacity counts against the budget too.
		for i := 0; i < len(body); i += 512 {
			w.Write([]byte(body[i : i+512]))
			w.(http.Flusher).Flush()
		}
	})
	o.handle("/v", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		w.Header().Set("Vary", "X-Variant")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write([]byte(body))
	})
	o.handle("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		w.Write([]byte(big))
	})
	h1, h3 := startCacheTLS(t, o, "max_bytes 4MiB\n\t\tmax_object_bytes 2MiB")
	store, _ := lookupStore("default")
	heap0, rss0 := liveMemory()
	for _, tc := range []struct {
		proto string
		edge  *testEdge
	}{{"HTTP/1.1", h1}, {"HTTP/3", h3}} {
		for _, flood := range []struct {
			name    string
			n       int
			request func(i int) (path string, header []string)
		}{
			{"unique keys", 2000, func(i int) (string, []string) { return fmt.Sprintf("/u?%s-%d", tc.proto, i), nil }},
			{"Vary variants", 2000, func(i int) (string, []string) {
				return "/v", []string{"X-Variant", fmt.Sprintf("%s-%d", tc.proto, i)}
			}},
			{"bodies above max_object_bytes", 6, func(i int) (string, []string) { return fmt.Sprintf("/big?%s-%d", tc.proto, i), nil }},
		} {
			floodEdge(t, tc.edge, flood.n, flood.request)
			entries, used := store.Usage()
			heap, rss := liveMemory()
			t.Logf("%s, %d %s: store %d entries, %d bytes (budget %d); live heap +%d KiB, RSS +%d KiB",
				tc.proto, flood.n, flood.name, entries, used, floodBudget, (heap-heap0)>>10, (rss-rss0)>>10)
			if used > floodBudget {
				t.Fatalf("store charged %d bytes, budget %d", used, floodBudget)
			}
			if entries == 0 {
				t.Fatal("nothing stored")
			}
			if tags := store.storage.(*memoryStore).tagCount(); tags > entries {
				t.Fatalf("the tag index holds %d tags for %d entries", tags, entries)
			}
			if heap-heap0 > 2*floodBudget+heapSlack {
				t.Fatalf("live heap grew by %d bytes for a %d-byte budget", heap-heap0, floodBudget)
			}
			if rss-rss0 > 2*floodBudget+rssSlack && !raceEnabled {
				t.Fatalf("RSS grew by %d bytes for a %d-byte budget", rss-rss0, floodBudget)
			}
		}
	}
}

// floodEdge sends n requests made by request, 16 at a time, and checks
// each is answered whole.
func floodEdge(t *testing.T, e *testEdge, n int, request func(i int) (string, []string)) {
	t.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				path, header := request(i)
				req, _ := http.NewRequest(http.MethodGet, e.base+path, nil)
				for j := 0; j+1 < len(header); j += 2 {
					req.Header.Set(header[j], header[j+1])
				}
				resp, err := e.client.Do(req)
				if err != nil {
					t.Errorf("%s: %v", path, err)
					return
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					t.Errorf("%s: %d, %v", path, resp.StatusCode, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
}

// liveMemory is the heap in use after a collection, and the resident set
// after returning what is free to the OS (0 where /proc is not there).
func liveMemory() (heap, rss int64) {
	debug.FreeOSMemory() // collects, then returns free pages
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc), residentSetSize()
}

// tagCount is the number of tags the index holds.
func (s *memoryStore) tagCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tags)
}

func residentSetSize() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
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
