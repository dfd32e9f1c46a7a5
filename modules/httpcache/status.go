package httpcache

import (
	"net/http"
	"strconv"
	"time"
)

// cacheStatus collects what the cache did for one response, written as
// Cache-Status (RFC 9211) and Server-Timing, so a browser's Resource Timing
// can be joined with the edge's view.
type cacheStatus struct {
	start     time.Time // real time, not the store's clock: Server-Timing measures latency
	hit       bool
	ttl       time.Duration
	fwd       string // miss, stale, bypass
	fwdStatus int
	stored    bool
	collapsed bool
	detail    string
	originDur time.Duration
}

// cacheName identifies this cache in Cache-Status lists.
const cacheName = "lastmile"

func (cs *cacheStatus) write(h http.Header) {
	// Both fields are built in one stack buffer and set by their canonical
	// keys: this runs on every hit.
	var buf [192]byte
	b := append(buf[:0], cacheName...)
	if cs.hit {
		b = append(b, "; hit; ttl="...)
		b = strconv.AppendInt(b, int64(cs.ttl/time.Second), 10)
	} else if cs.fwd != "" {
		b = append(b, "; fwd="...)
		b = append(b, cs.fwd...)
		if cs.fwdStatus != 0 {
			b = append(b, "; fwd-status="...)
			b = strconv.AppendInt(b, int64(cs.fwdStatus), 10)
		}
		if cs.stored {
			b = append(b, "; stored"...)
		}
		if cs.collapsed {
			b = append(b, "; collapsed"...)
		}
	}
	if cs.detail != "" {
		b = append(b, "; detail="...)
		b = append(b, cs.detail...)
	}
	status := len(b)

	outcome := "hit"
	switch {
	case cs.hit && cs.detail != "":
		outcome = "stale"
	case cs.hit:
	case cs.fwd == "stale" && cs.fwdStatus == http.StatusNotModified:
		outcome = "revalidated"
	case cs.fwd != "":
		outcome = cs.fwd
	}
	b = append(b, "cache;desc="...)
	b = append(b, outcome...)
	b = append(b, ", edge;dur="...)
	b = appendMs(b, time.Since(cs.start))
	if !cs.hit && cs.originDur > 0 {
		b = append(b, ", origin;dur="...)
		b = appendMs(b, cs.originDur)
	}
	all := string(b)
	h["Cache-Status"] = append(h["Cache-Status"], all[:status])
	h["Server-Timing"] = append(h["Server-Timing"], all[status:])
}

// appendMs appends d in milliseconds with one decimal.
func appendMs(b []byte, d time.Duration) []byte {
	return strconv.AppendFloat(b, float64(d.Microseconds())/1000, 'f', 1, 64)
}
