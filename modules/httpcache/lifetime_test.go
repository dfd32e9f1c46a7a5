package httpcache

import (
	"net/http"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
)

// rfcEpoch is where the table tests' fake clocks start: a whole second,
// so Date fields (one-second resolution) name it exactly.
var rfcEpoch = time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)

// rfcConfig is the default route's policy configuration at clock's time.
func rfcConfig(clock *fakeClock) policyConfig {
	return policyConfig{heuristic: true, heuristicMax: time.Hour, now: clock.Now()}
}

// rfcHandler is an edge_cache handler with the defaults Provision sets
// that matter to the store decision, on a store that reads clock.
func rfcHandler(clock *fakeClock) *Handler {
	h := &Handler{HeuristicMax: caddy.Duration(time.Hour), store: &namedStore{clock: newStoreClock()}}
	h.store.clock.set(clock.Now)
	return h
}

// rfcResponseHeader builds a response header from name/value pairs, with a
// Date of now unless the pairs set one ("" leaves it out).
func rfcResponseHeader(now time.Time, pairs ...string) http.Header {
	h := http.Header{"Date": {now.Format(http.TimeFormat)}}
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i] == "Date" {
			h.Del("Date")
			if pairs[i+1] == "" {
				continue
			}
		}
		h.Add(pairs[i], pairs[i+1])
	}
	return h
}

func rfcHTTPDate(t time.Time) string { return t.Format(http.TimeFormat) }

// The freshness lifetime a response gets at the edge.
func TestFreshnessLifetime(t *testing.T) {
	clock := &fakeClock{now: rfcEpoch}
	now := clock.Now()
	for _, tc := range []struct {
		name, rfc     string
		status        int
		header        []string
		cfg           func(*policyConfig)
		want          time.Duration
		wantHeuristic bool
	}{
		{"max-age", "9111 §5.2.2.1", 200, []string{"Cache-Control", "max-age=60"}, nil, time.Minute, false},
		{"s-maxage overrides max-age", "9111 §5.2.2.10", 200, []string{"Cache-Control", "max-age=10, s-maxage=60"}, nil, time.Minute, false},
		{"max-age overrides Expires", "9111 §5.3", 200,
			[]string{"Cache-Control", "max-age=60", "Expires", rfcHTTPDate(now.Add(time.Hour))}, nil, time.Minute, false},
		{"Expires minus Date", "9111 §4.2.1", 200,
			[]string{"Date", rfcHTTPDate(now.Add(-10 * time.Second)), "Expires", rfcHTTPDate(now.Add(time.Hour))}, nil, time.Hour + 10*time.Second, false},
		{"Expires without Date: minus the time received", "9111 §4.2.1", 200,
			[]string{"Date", "", "Expires", rfcHTTPDate(now.Add(time.Hour))}, nil, time.Hour, false},
		{"Expires in the past: stale", "9111 §5.3", 200, []string{"Expires", rfcHTTPDate(now.Add(-time.Hour))}, nil, 0, false},
		{"invalid Expires means already expired", "9111 §5.3", 200, []string{"Expires", "0"}, nil, 0, false},
		{"delta-seconds beyond 2^31 are 2^31", "9111 §1.2.2", 200,
			[]string{"Cache-Control", "max-age=99999999999"}, nil, maxDelta * time.Second, false},
		{"conflicting max-age duplicates: stale", "9111 §4.2.1", 200, []string{"Cache-Control", "max-age=10, max-age=20"}, nil, 0, false},
		{"invalid max-age: stale", "9111 §4.2.1", 200, []string{"Cache-Control", "max-age=ten"}, nil, 0, false},
		{"CDN-Cache-Control overrides Cache-Control", "9213 §2.1", 200,
			[]string{"Cache-Control", "max-age=10", "Cdn-Cache-Control", "max-age=60"}, nil, time.Minute, false},
		{"CDN-Cache-Control: Expires is ignored too", "9213 §2.1", 200,
			[]string{"Cdn-Cache-Control", "public", "Expires", rfcHTTPDate(now.Add(time.Hour))}, nil, 0, false},
		{"heuristic: 10% of the time since Last-Modified", "9111 §4.2.2", 200,
			[]string{"Last-Modified", rfcHTTPDate(now.Add(-5 * time.Hour))}, nil, 30 * time.Minute, true},
		{"heuristic capped by heuristic_max", "9111 §4.2.2", 200,
			[]string{"Last-Modified", rfcHTTPDate(now.Add(-100 * time.Hour))}, nil, time.Hour, true},
		{"heuristic for a heuristically cacheable 404", "9111 §4.2.2, 9110 §15.1", 404,
			[]string{"Last-Modified", rfcHTTPDate(now.Add(-5 * time.Hour))}, nil, 30 * time.Minute, true},
		{"no heuristic for a status not heuristically cacheable", "9111 §4.2.2", 302,
			[]string{"Last-Modified", rfcHTTPDate(now.Add(-5 * time.Hour))}, nil, 0, false},
		{"public makes a status heuristically cacheable", "9111 §4.2.2, §5.2.2.9", 302,
			[]string{"Cache-Control", "public", "Last-Modified", rfcHTTPDate(now.Add(-5 * time.Hour))}, nil, 30 * time.Minute, true},
		{"explicit max-age=0: no heuristic", "9111 §4.2.2", 200,
			[]string{"Cache-Control", "max-age=0", "Last-Modified", rfcHTTPDate(now.Add(-5 * time.Hour))}, nil, 0, false},
		{"Expires: no heuristic", "9111 §4.2.2", 200,
			[]string{"Expires", rfcHTTPDate(now), "Last-Modified", rfcHTTPDate(now.Add(-5 * time.Hour))}, nil, 0, false},
		{"Last-Modified in the future: no heuristic", "9111 §4.2.2", 200,
			[]string{"Last-Modified", rfcHTTPDate(now.Add(time.Hour))}, nil, 0, false},
		{"heuristic off", "9111 §4.2.2 (MAY)", 200,
			[]string{"Last-Modified", rfcHTTPDate(now.Add(-5 * time.Hour))}, func(c *policyConfig) { c.heuristic = false }, 0, false},
		{"micro_cache: a 200 without cache headers", "9111 §4.2.2 (heuristic by configuration)", 200,
			nil, func(c *policyConfig) { c.microCache = time.Second }, time.Second, false},
		{"micro_cache: not when Cache-Control says anything", "9111 §4.2.2", 200,
			[]string{"Cache-Control", "public"}, func(c *policyConfig) { c.microCache = time.Second }, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := rfcConfig(clock)
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			p := computePolicy(tc.status, rfcResponseHeader(now, tc.header...), cfg)
			if p.lifetime != tc.want || p.heuristic != tc.wantHeuristic {
				t.Errorf("RFC %s: lifetime %v (heuristic %v), want %v (heuristic %v)", tc.rfc, p.lifetime, p.heuristic, tc.want, tc.wantHeuristic)
			}
		})
	}
}
