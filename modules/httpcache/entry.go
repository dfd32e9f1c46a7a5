package httpcache

import (
	"net/http"
	"sync/atomic"
	"time"
)

// entry is one stored response: a variant of a primary key.
type entry struct {
	status int
	header http.Header // as served, less edge-only and stripped fields
	edge   http.Header // the edge-only fields (edgeFields), nil without any
	body   []byte

	requestTime, responseTime time.Time
	date                      time.Time
	ageValue                  time.Duration
	policy                    policy

	varyNames []string
	tags      []string
	url       string // what purges by URL and prefix match
	size      int    // bytes charged against the budget

	softPurged atomic.Bool
	// hits in the current refresh-ahead window, and when it started.
	windowHits  atomic.Int64
	windowStart atomic.Int64
	refreshing  atomic.Bool
	// hit holds the Age and Cache-Status of the last fresh hit's second.
	hit atomic.Pointer[hitFields]
	// http1 holds the head of HTTP/1.1 hits answered below net/http,
	// encoded under the options of the handler that last answered one.
	http1 atomic.Pointer[http1Head]
	// http3 holds the QPACK-encoded fields of HTTP/3 hits, likewise.
	http3 atomic.Pointer[http3Head]
}

// entryOverhead is what an entry costs beyond its header and body bytes:
// the struct, the map and slice headers, the key.
const entryOverhead = 512

func headerSize(h http.Header) int {
	n := 0
	for k, vs := range h {
		for _, v := range vs {
			n += len(k) + len(v) + 32
		}
	}
	return n
}

// age is the entry's current age (RFC 9111 section 4.2.3). The apparent
// age is taken at the Date field's one-second resolution: a response that
// arrives 0.7 s into the second its Date names is not 0.7 s old, and
// counting it so would make a one-second s-maxage entry stale as it is
// stored (and refresh it on every request).
func (e *entry) age(now time.Time) time.Duration {
	apparent := max(0, e.responseTime.Truncate(time.Second).Sub(e.date))
	responseDelay := e.responseTime.Sub(e.requestTime)
	correctedAge := e.ageValue + responseDelay
	initial := max(apparent, correctedAge)
	return initial + now.Sub(e.responseTime)
}

// ttl is how long the entry stays fresh from now (negative when stale).
// A soft-purged entry is stale.
func (e *entry) ttl(now time.Time) time.Duration {
	return e.ttlAt(e.age(now))
}

// ttlAt is ttl for an entry of the given age.
func (e *entry) ttlAt(age time.Duration) time.Duration {
	if e.softPurged.Load() {
		return min(-time.Nanosecond, e.policy.lifetime-age)
	}
	return e.policy.lifetime - age
}

// varyRecord is stored under a primary key and names the fields its
// variants vary on.
type varyRecord struct {
	names []string
	url   string
}

func (v *varyRecord) size() int {
	n := entryOverhead
	for _, name := range v.names {
		n += len(name)
	}
	return n
}
