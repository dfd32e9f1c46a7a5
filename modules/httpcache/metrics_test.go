package httpcache

import (
	"net/http"
	"strings"
	"testing"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

func (e *testEdge) metric(t *testing.T, series string) float64 {
	t.Helper()
	return testcaddy.Metric(t, strings.TrimPrefix(e.admin, "http://"), series)
}

// The admin /metrics endpoint counts what the cache did.
func TestMetrics(t *testing.T) {
	o := newOrigin(t)
	o.respond("/m", 200, "Cache-Control", "max-age=60", "Surrogate-Key", "m")
	e := startCache(t, o, "purge_token t")
	series := []string{
		`lastmile_cache_requests_total{outcome="hit"}`, `lastmile_cache_requests_total{outcome="miss"}`,
		`lastmile_cache_origin_fetches_total{status="2xx"}`, `lastmile_cache_stores_total`,
		`lastmile_cache_purged_total{kind="tag",mode="hard"}`,
	}
	before := map[string]float64{}
	for _, s := range series {
		before[s] = e.metric(t, s)
	}
	e.get(t, "/m")
	e.get(t, "/m")
	e.get(t, "/m")
	e.purge(t, "t", `{"tags":["m"]}`)
	want := []float64{2, 1, 1, 1, 1}
	for i, s := range series {
		if got := e.metric(t, s) - before[s]; got != want[i] {
			t.Errorf("%s grew by %v, want %v", s, got, want[i])
		}
	}
	if e.metric(t, `lastmile_cache_stored_bytes{cache="default"}`) < 0 {
		t.Error("no stored_bytes gauge")
	}
	if e.metric(t, `lastmile_cache_stored_entries{cache="default"}`) != 0 {
		t.Error("purged store still counts entries")
	}
}

// An origin fetch that fails before a response is counted, for a request
// nobody can join (one with Authorization) as for a shared one.
func TestOriginErrorsCounted(t *testing.T) {
	o := newOrigin(t)
	o.handle("/down", func(w http.ResponseWriter, r *http.Request) {
		c, _, _ := w.(http.Hijacker).Hijack()
		c.Close() // reverse_proxy reports a 502 error
	})
	e := startCache(t, o, "")
	series := `lastmile_cache_origin_fetches_total{status="error"}`
	before := e.metric(t, series)
	for _, header := range [][]string{nil, {"Authorization", "Bearer alice"}} {
		if r := e.get(t, "/down", header...); r.status != http.StatusBadGateway {
			t.Fatalf("%v: status %d, want 502", header, r.status)
		}
	}
	if got := e.metric(t, series) - before; got != 2 {
		t.Fatalf("%s grew by %v, want 2", series, got)
	}
}
