package httpcache

import (
	"net/http"
	"strconv"
	"time"
)

// A fresh hit adds Age, Cache-Status and Server-Timing to the stored
// fields. Age and the Cache-Status member change once a second at most,
// so each entry keeps the values of the second it was last served in and
// a hit reuses them; Server-Timing's edge duration is taken from a table.
// A hit then allocates none of its own fields. The values are shared by
// every response that carries them and never written to: net/http and
// HTTP/2 copy the header map before writing it, and copyHeader clips.

// hitFields are an entry's Age and Cache-Status on fresh hits in one
// second of its age, for one cache name.
type hitFields struct {
	age, ttl int64 // whole seconds they were made for
	name     string
	compact  bool
	ageValue []string
	status   []string // the stored Cache-Status members, then this cache's
}

// HitFields values: how much a fresh hit says about itself.
const (
	// hitFieldsFull writes Cache-Status with the entry's ttl and
	// Server-Timing with the edge's time (RFC 9211's hit and ttl).
	hitFieldsFull = "full"
	// hitFieldsCompact writes Cache-Status "<name>; hit" and no
	// Server-Timing: the fields a hit adds then repeat from hit to hit,
	// and HPACK and QPACK send them as one-byte references.
	hitFieldsCompact = "compact"
)

// freshHitFields returns e's Age and Cache-Status values for a fresh hit
// at age with ttl, made anew only when the second or the cache differs
// from the last hit's.
func (e *entry) freshHitFields(name string, compact bool, age, ttl time.Duration) *hitFields {
	a, t := int64(max(0, age)/time.Second), int64(ttl/time.Second)
	if hf := e.hit.Load(); hf != nil && hf.age == a && hf.ttl == t && hf.name == name && hf.compact == compact {
		return hf
	}
	hf := &hitFields{age: a, ttl: t, name: name, compact: compact, ageValue: []string{strconv.FormatInt(a, 10)}}
	member := name + "; hit"
	if !compact {
		member += "; ttl=" + strconv.FormatInt(t, 10)
	}
	stored := e.header["Cache-Status"]
	hf.status = append(stored[:len(stored):len(stored)], member)
	e.hit.Store(hf)
	return hf
}

// hitTimingMax bounds the edge durations whose Server-Timing value is
// made once: a hit takes microseconds, and one that took longer (a
// stalled goroutine) allocates its value.
const hitTimingMax = 100 // tenths of a millisecond

// hitTiming holds the Server-Timing values of fresh hits that took 0.0 to
// 9.9 ms.
var hitTiming = func() (t [hitTimingMax][]string) {
	for i := range t {
		t[i] = []string{"cache;desc=hit, edge;dur=" + strconv.FormatFloat(float64(i)/10, 'f', 1, 64)}
	}
	return t
}()

// writeFreshHit sets the fields a fresh hit adds, as cacheStatus.write
// would: Age, this cache's Cache-Status member, and unless compact,
// Server-Timing.
func (h *Handler) writeFreshHit(hdr http.Header, e *entry, cs *cacheStatus, age time.Duration) {
	compact := h.HitFields == hitFieldsCompact
	hf := e.freshHitFields(cs.name, compact, age, cs.ttl)
	hdr["Age"] = hf.ageValue
	if cur := hdr["Cache-Status"]; len(cur) != len(e.header["Cache-Status"]) {
		// Not the stored field: stripped (no-cache="Cache-Status") or
		// set before the cache. This cache's member goes after what the
		// response has, as cacheStatus.write puts it.
		hdr["Cache-Status"] = append(cur[:len(cur):len(cur)], hf.status[len(hf.status)-1])
	} else {
		hdr["Cache-Status"] = hf.status
	}
	if compact {
		return
	}
	if tabled, ok := tabledHitTiming(cs.start); ok && len(hdr["Server-Timing"]) == 0 {
		hdr["Server-Timing"] = tabled
		return
	}
	var buf [48]byte
	hdr["Server-Timing"] = append(hdr["Server-Timing"], string(appendHitTiming(buf[:0], cs.start)))
}

// tabledHitTiming is the Server-Timing value of a fresh hit that started
// at start from the table, if it took less than hitTimingMax.
func tabledHitTiming(start time.Time) ([]string, bool) {
	if tenths, ok := hitTimingTenths(start); ok {
		return hitTiming[tenths], true
	}
	return nil, false
}

// hitTimingTenths is the index in hitTiming of a fresh hit that started
// at start, if it took less than hitTimingMax.
func hitTimingTenths(start time.Time) (int64, bool) {
	// In tenths of a millisecond, rounded down.
	tenths := time.Since(start).Microseconds() / 100
	return tenths, tenths < hitTimingMax
}

// appendHitTiming appends the Server-Timing member of a fresh hit that
// started at start.
func appendHitTiming(b []byte, start time.Time) []byte {
	b = append(b, "cache;desc=hit, edge;dur="...)
	return appendMs(b, time.Since(start))
}
