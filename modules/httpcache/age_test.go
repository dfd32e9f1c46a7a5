package httpcache

import (
	"testing"
	"time"
)

// An entry's current age (RFC 9111 section 4.2.3) and what is left of its
// freshness.
func TestAge(t *testing.T) {
	for _, tc := range []struct {
		name, rfc string
		into      time.Duration // how far into a second the response arrives
		dateSkew  time.Duration // Date minus the response time
		ageValue  time.Duration // the Age field it arrived with
		delay     time.Duration // response time minus request time
		resident  time.Duration // time since the response arrived
		want      time.Duration
	}{
		{"resident time", "9111 §4.2.3 resident_time", 0, 0, 0, 0, 10 * time.Second, 10 * time.Second},
		{"the Age it arrived with", "9111 §4.2.3 corrected_age_value", 0, 0, 30 * time.Second, 0, 10 * time.Second, 40 * time.Second},
		{"response delay added to Age", "9111 §4.2.3 corrected_age_value", 0, 0, 30 * time.Second, 2 * time.Second, 0, 32 * time.Second},
		{"apparent age from Date", "9111 §4.2.3 apparent_age", 0, -20 * time.Second, 0, 0, 0, 20 * time.Second},
		{"apparent age above the corrected Age wins", "9111 §4.2.3 corrected_initial_age", 0, -20 * time.Second, 5 * time.Second, 0, time.Second, 21 * time.Second},
		{"corrected Age above the apparent age wins", "9111 §4.2.3 corrected_initial_age", 0, -5 * time.Second, 20 * time.Second, time.Second, 0, 21 * time.Second},
		{"a Date in the future is no negative age", "9111 §4.2.3 apparent_age = max(0, ...)", 0, 30 * time.Second, 0, 0, 3 * time.Second, 3 * time.Second},
		{"Date counts at its one-second resolution", "9110 §5.6.7 (Date has one-second resolution)", 700 * time.Millisecond, -700 * time.Millisecond, 0, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{now: rfcEpoch.Add(tc.into)}
			responseTime := clock.Now()
			e := &entry{
				requestTime: responseTime.Add(-tc.delay), responseTime: responseTime,
				date: responseTime.Add(tc.dateSkew), ageValue: tc.ageValue,
			}
			clock.advance(tc.resident)
			if got := e.age(clock.Now()); got != tc.want {
				t.Errorf("RFC %s: age %v, want %v", tc.rfc, got, tc.want)
			}
		})
	}
}

// An entry is fresh while its age is below its lifetime (RFC 9111 section
// 4.2: freshness_lifetime > current_age).
func TestTTL(t *testing.T) {
	clock := &fakeClock{now: rfcEpoch}
	e := &entry{requestTime: clock.Now(), responseTime: clock.Now(), date: clock.Now(), ageValue: 10 * time.Second,
		policy: policy{lifetime: time.Minute}}
	for _, tc := range []struct {
		name, rfc string
		advance   time.Duration
		want      time.Duration
	}{
		{"lifetime minus the Age it arrived with", "9111 §4.2.1", 0, 50 * time.Second},
		{"fresh just before the lifetime", "9111 §4.2", 49*time.Second + 999*time.Millisecond, time.Millisecond},
		{"stale when age equals lifetime", "9111 §4.2", time.Millisecond, 0},
		{"then stale by how much older", "9111 §4.2.4", 5 * time.Second, -5 * time.Second},
	} {
		clock.advance(tc.advance)
		if got := e.ttl(clock.Now()); got != tc.want {
			t.Errorf("%s (RFC %s): ttl %v, want %v", tc.name, tc.rfc, got, tc.want)
		}
	}
}
