package httpcache

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// cacheStatus collects what the cache did for one response, written as
// Cache-Status (RFC 9211) and Server-Timing, so a browser's Resource Timing
// can be joined with the edge's view.
type cacheStatus struct {
	start     time.Time
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
	var b strings.Builder
	b.WriteString(cacheName)
	if cs.hit {
		b.WriteString("; hit; ttl=")
		b.WriteString(strconv.FormatInt(int64(cs.ttl/time.Second), 10))
	} else if cs.fwd != "" {
		b.WriteString("; fwd=")
		b.WriteString(cs.fwd)
		if cs.fwdStatus != 0 {
			b.WriteString("; fwd-status=")
			b.WriteString(strconv.Itoa(cs.fwdStatus))
		}
		if cs.stored {
			b.WriteString("; stored")
		}
		if cs.collapsed {
			b.WriteString("; collapsed")
		}
	}
	if cs.detail != "" {
		b.WriteString("; detail=")
		b.WriteString(cs.detail)
	}
	h.Add("Cache-Status", b.String())

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
	st := "cache;desc=" + outcome + ", edge;dur=" + ms(time.Since(cs.start))
	if !cs.hit && cs.originDur > 0 {
		st += ", origin;dur=" + ms(cs.originDur)
	}
	h.Add("Server-Timing", st)
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64)
}
