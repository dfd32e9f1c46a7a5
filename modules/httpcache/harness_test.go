package httpcache

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// testOrigin is a real HTTP origin whose responses each test scripts per
// path, counting what reaches it.
type testOrigin struct {
	*httptest.Server
	mu       sync.Mutex
	routes   map[string]http.HandlerFunc
	hits     map[string]*atomic.Int64
	lastReqs map[string]*http.Request
	clock    *fakeClock // if set, the Date of every response
}

func newOrigin(t *testing.T) *testOrigin {
	o := &testOrigin{routes: map[string]http.HandlerFunc{}, hits: map[string]*atomic.Int64{}, lastReqs: map[string]*http.Request{}}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		h := o.routes[r.URL.Path]
		c := o.hits[r.URL.Path]
		if c == nil {
			c = new(atomic.Int64)
			o.hits[r.URL.Path] = c
		}
		o.lastReqs[r.URL.Path] = r.Clone(r.Context())
		clock := o.clock
		o.mu.Unlock()
		if clock != nil {
			w.Header().Set("Date", clock.Now().UTC().Format(http.TimeFormat))
		}
		c.Add(1)
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(o.Close)
	return o
}

func (o *testOrigin) handle(path string, h http.HandlerFunc) {
	o.mu.Lock()
	o.routes[path] = h
	o.mu.Unlock()
}

// respond scripts path to answer with these header fields and a body that
// counts the origin's hits (so a test sees which response it got).
func (o *testOrigin) respond(path string, status int, header ...string) {
	o.handle(path, func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Add(header[i], header[i+1])
		}
		w.WriteHeader(status)
		fmt.Fprintf(w, "%s #%d", r.URL.Path, o.count(r.URL.Path))
	})
}

func (o *testOrigin) count(path string) int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	if c := o.hits[path]; c != nil {
		return c.Load()
	}
	return 0
}

func (o *testOrigin) last(path string) *http.Request {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.lastReqs[path]
}

// testEdge is Caddy running the cache in front of the origin.
type testEdge struct {
	base, admin string
	client      *http.Client
}

// startCache runs `edge_cache { options }` + reverse_proxy to origin.
func startCache(t *testing.T, origin *testOrigin, options string) *testEdge {
	t.Helper()
	port, adminPort := testcaddy.FreePort(t), testcaddy.FreePort(t)
	cfg := fmt.Sprintf(`{
	admin 127.0.0.1:%s
	auto_https off
	persist_config off
}
http://127.0.0.1:%s {
	edge_cache {
%s
	}
	reverse_proxy %s
}
`, adminPort, port, options, strings.TrimPrefix(origin.URL, "http://"))
	testcaddy.Run(t, cfg)
	return &testEdge{
		base: "http://127.0.0.1:" + port, admin: "http://127.0.0.1:" + adminPort,
		client: &http.Client{
			Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 500},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

type result struct {
	status int
	header http.Header
	body   string
}

func (r result) cacheStatus() string { return r.header.Get("Cache-Status") }

func (e *testEdge) do(t *testing.T, method, path string, header ...string) result {
	t.Helper()
	req, err := http.NewRequest(method, e.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if strings.EqualFold(header[i], "Host") {
			req.Host = header[i+1]
			continue
		}
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := e.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: body: %v", method, path, err)
	}
	return result{resp.StatusCode, resp.Header, string(body)}
}

func (e *testEdge) get(t *testing.T, path string, header ...string) result {
	t.Helper()
	return e.do(t, http.MethodGet, path, header...)
}

// purge posts a purge request to the admin API.
func (e *testEdge) purge(t *testing.T, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.admin+"/lastmile/cache/purge", bytes.NewBufferString(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func wantHit(t *testing.T, r result) {
	t.Helper()
	if !strings.Contains(r.cacheStatus(), "; hit") {
		t.Fatalf("want a hit, Cache-Status %q, body %q", r.cacheStatus(), r.body)
	}
}

func wantMiss(t *testing.T, r result) {
	t.Helper()
	if strings.Contains(r.cacheStatus(), "; hit") {
		t.Fatalf("want the origin, got Cache-Status %q, body %q", r.cacheStatus(), r.body)
	}
}
