package httpcache

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// Whether a stored response may be served without going to the origin,
// and under which permission, as it ages: fresh (RFC 9111 section 4.2, the
// request's limits of section 5.2.1), stale under the request's max-stale,
// under stale-while-revalidate (RFC 5861 section 3), or, when the origin
// fails, under stale-if-error (RFC 5861 section 4).
func TestStaleRules(t *testing.T) {
	for _, tc := range []struct {
		name, rfc string
		response  string // Cache-Control
		request   string // Cache-Control
		cfg       func(*policyConfig)
		elapsed   time.Duration
		want      string // the permissions that hold, space-separated
	}{
		{"fresh while age is below max-age", "9111 §4.2", "max-age=60", "", nil, 59 * time.Second, "fresh"},
		{"stale once age reaches max-age", "9111 §4.2", "max-age=60", "", nil, 60 * time.Second, ""},
		{"request max-age=0 wants validation", "9111 §5.2.1.1", "max-age=60", "max-age=0", nil, time.Second, ""},
		{"request max-age takes an entry no older", "9111 §5.2.1.1", "max-age=60", "max-age=30", nil, 30 * time.Second, "fresh"},
		{"min-fresh wants that much freshness left", "9111 §5.2.1.3", "max-age=60", "min-fresh=30", nil, 31 * time.Second, ""},
		{"min-fresh met", "9111 §5.2.1.3", "max-age=60", "min-fresh=30", nil, 30 * time.Second, "fresh"},
		{"request no-cache wants validation", "9111 §5.2.1.4", "max-age=60", "no-cache", nil, 0, ""},
		{"response no-cache: validated before each use", "9111 §5.2.2.4", "no-cache, max-age=60", "", nil, 0, ""},
		{"max-stale within its bound", "9111 §5.2.1.2", "max-age=60", "max-stale=10", nil, 70 * time.Second, "max-stale"},
		{"max-stale beyond its bound", "9111 §5.2.1.2", "max-age=60", "max-stale=10", nil, 71 * time.Second, ""},
		{"max-stale without a value takes any staleness", "9111 §5.2.1.2", "max-age=60", "max-stale", nil, 24 * time.Hour, "max-stale"},
		{"must-revalidate forbids max-stale", "9111 §5.2.2.2", "max-age=60, must-revalidate", "max-stale", nil, 61 * time.Second, ""},
		{"proxy-revalidate forbids max-stale at a shared cache", "9111 §5.2.2.8", "max-age=60, proxy-revalidate", "max-stale", nil, 61 * time.Second, ""},
		{"s-maxage implies proxy-revalidate", "9111 §5.2.2.10", "s-maxage=60", "max-stale", nil, 61 * time.Second, ""},
		{"stale-while-revalidate within its window", "5861 §3", "max-age=60, stale-while-revalidate=30", "", nil, 90 * time.Second, "swr"},
		{"stale-while-revalidate beyond its window", "5861 §3", "max-age=60, stale-while-revalidate=30", "", nil, 91 * time.Second, ""},
		{"must-revalidate forbids stale-while-revalidate", "9111 §4.2.4, §5.2.2.2",
			"max-age=60, must-revalidate, stale-while-revalidate=30", "", nil, 70 * time.Second, ""},
		{"request no-cache waits for the origin despite stale-while-revalidate", "9111 §5.2.1.4",
			"max-age=60, stale-while-revalidate=30", "no-cache", nil, 70 * time.Second, ""},
		{"route default stale_while_revalidate", "5861 §3 (by configuration)", "max-age=60", "",
			func(c *policyConfig) { c.defaultSWR = 30 * time.Second }, 90 * time.Second, "swr"},
		{"s-maxage with the origin's own stale-while-revalidate: the specific grant wins", "5861 §3 over 9111 §5.2.2.10",
			"s-maxage=60, stale-while-revalidate=30", "", nil, 70 * time.Second, "swr"},
		{"s-maxage with a route default only: no stale", "9111 §5.2.2.10", "s-maxage=60", "",
			func(c *policyConfig) { c.defaultSWR = 30 * time.Second }, 70 * time.Second, ""},
		{"max-stale and stale-while-revalidate both", "9111 §5.2.1.2, 5861 §3",
			"max-age=60, stale-while-revalidate=30", "max-stale=100", nil, 70 * time.Second, "max-stale swr"},
		{"stale-if-error within its window", "5861 §4", "max-age=60, stale-if-error=30", "", nil, 90 * time.Second, "sie"},
		{"stale-if-error beyond its window", "5861 §4", "max-age=60, stale-if-error=30", "", nil, 91 * time.Second, ""},
		{"a request's stale-if-error", "5861 §4", "max-age=60", "stale-if-error=30", nil, 90 * time.Second, "sie"},
		{"a request's stale-if-error widens the response's", "5861 §4", "max-age=60, stale-if-error=10", "stale-if-error=30", nil, 90 * time.Second, "sie"},
		{"route default stale_if_error", "5861 §4 (by configuration)", "max-age=60", "",
			func(c *policyConfig) { c.defaultSIE = time.Minute }, 2 * time.Minute, "sie"},
		{"stale-while-revalidate and stale-if-error both", "5861 §3, §4",
			"max-age=60, stale-while-revalidate=30, stale-if-error=60", "", nil, 80 * time.Second, "swr sie"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{now: rfcEpoch}
			cfg := rfcConfig(clock)
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			header := rfcResponseHeader(clock.Now(), "Cache-Control", tc.response)
			e := &entry{
				requestTime: clock.Now(), responseTime: clock.Now(), date: responseDate(header, clock.Now()),
				policy: computePolicy(http.StatusOK, header, cfg),
			}
			req := parseCacheControl([]string{tc.request})
			clock.advance(tc.elapsed)
			now := clock.Now()
			age, ttl := e.age(now), e.ttl(now)
			var got []string
			if e.policy.freshFor(req, age, ttl) {
				got = append(got, "fresh")
			}
			if ttl <= 0 && e.policy.maxStaleCovers(req, -ttl) {
				got = append(got, "max-stale")
			}
			if ttl <= 0 && e.policy.swrCovers(req, -ttl) {
				got = append(got, "swr")
			}
			if ttl <= 0 && new(Handler).staleIfErrorAllowed(e, req, now) {
				got = append(got, "sie")
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("RFC %s: %q at age %v, want %q", tc.rfc, g, age, tc.want)
			}
		})
	}
}
