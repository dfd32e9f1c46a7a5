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
	name      string    // this cache's identifier, serialized (Handler.statusItem)
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

// defaultStatusName identifies this cache in Cache-Status lists unless
// status_name says otherwise.
const defaultStatusName = "lastmile"

// write appends this cache's member to Cache-Status, after those of the
// caches nearer the origin that the response already carries: RFC 9211
// section 2 lists the cache closest to the origin first, the one closest
// to the user last.
func (cs *cacheStatus) write(h http.Header) {
	// Both fields are built in one stack buffer and set by their canonical
	// keys: this runs on every hit.
	var buf [192]byte
	b := append(buf[:0], cs.name...)
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

// statusItem serializes a cache identifier for Cache-Status: a token as it
// is, anything else as a quoted string (RFC 9211 section 2, RFC 8941
// sections 3.3.3 and 3.3.4).
func statusItem(name string) string {
	if sfToken(name) {
		return name
	}
	b := []byte{'"'}
	for i := 0; i < len(name); i++ {
		if name[i] == '"' || name[i] == '\\' {
			b = append(b, '\\')
		}
		b = append(b, name[i])
	}
	return string(append(b, '"'))
}

// sfToken reports whether s is a structured-field token: a letter or "*",
// then tchars, ":" or "/".
func sfToken(s string) bool {
	if s == "" || !(s[0] == '*' || (s[0]|0x20 >= 'a' && s[0]|0x20 <= 'z')) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] != ':' && s[i] != '/' && !validToken(s[i:i+1]) {
			return false
		}
	}
	return true
}

// validStatusName reports whether name can be written as a structured-field
// string: printable ASCII only, never empty.
func validStatusName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] > 0x7e {
			return false
		}
	}
	return true
}
