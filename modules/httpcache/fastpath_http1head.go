package httpcache

import (
	"net/http"
	"slices"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/lastmile-edge/lastmile/internal/frontdoor"
	"github.com/lastmile-edge/lastmile/internal/h1wire"
)

// The HTTP/1.1 head of a fresh hit answered below net/http depends, but
// for the fields the hit sets itself (Server, the handlers' before the
// cache, Age, Cache-Status's member, Server-Timing's, Date), only on the
// stored entry and two of the handler's options: forward_edge_fields and
// hit_fields. So, as a fresh hit's Age and Cache-Status values are kept
// per second (hitfields.go), the entry keeps its head encoded once, with
// the options it was encoded under; a hit under other options (a reload
// that changed them, or another site's handler on a shared store) encodes
// it anew and replaces it. A hit then merges its own few fields, sorted,
// into the stored lines: no header map, no sort of the stored fields, no
// walk of them. The encoded head is never written to once stored, and its
// bytes are charged with the entry (encodedHeadCharge).

// encodedHeadOptions are the handler's options an encoded head depends on.
type encodedHeadOptions struct {
	forwardEdge bool // forward_edge_fields: the edge-only fields are served
	compact     bool // hit_fields compact: Server-Timing is the stored one
}

func (h *Handler) encodedHeadOptions() encodedHeadOptions {
	return encodedHeadOptions{forwardEdge: h.ForwardEdgeFields, compact: h.HitFields == hitFieldsCompact}
}

// http1HeadKind is how client_tcp answers an entry's hits.
type http1HeadKind uint8

const (
	// http1Unwritable: net/http would chunk it or close after it, so it
	// is net/http's to answer (http1Writable).
	http1Unwritable http1HeadKind = iota
	// http1ByFields: written from the header map, as a max-stale hit
	// (its encoding would not fit its charge).
	http1ByFields
	// http1Encoded: the stored lines below are the head's.
	http1Encoded
)

// http1Head is an entry's HTTP/1.1 response head less the hit's own
// fields, for one set of options.
type http1Head struct {
	opts encodedHeadOptions
	kind http1HeadKind
	// names are the names of every field the response takes from the
	// entry, sorted: stored, forwarded edge-only, and stripped ones
	// (which take out a field of their name the handlers before the
	// cache add, as serveEntry's order does); lines[offs[i]:offs[i+1]]
	// are names[i]'s lines, none for a stripped field, for Age,
	// Cache-Status and (full) Server-Timing, set by the hit, and for a
	// name net/http drops.
	names []string
	offs  []int32
	lines []byte
	// notModified are the indexes in names of the fields a 304 leaves
	// out (h1wire.Unframed), in order.
	notModified []int
	// cacheStatus and serverTiming are the stored lines of these fields
	// that come before this cache's member; timed says the stored
	// response has Server-Timing (then the hit's member is not the
	// table's, as writeFreshHit does).
	cacheStatus, serverTiming []byte
	timed                     bool
	dated                     bool   // the stored response has Date: net/http adds none
	serverStored              bool   // names has Server: the entry gives (or strips) it
	getFraming, headFraming   []byte // the Content-Length and Content-Type lines net/http adds
	// where the cache's own fields go among names (slices.BinarySearch),
	// found once
	serverAt, ageAt, statusAt, timingAt int
}

// http1HeadOverhead bounds an encoded head's own size beyond its names
// and lines: the struct and its framing lines.
const http1HeadOverhead = 512

// encodedHeadCharge is what an entry with these fields is charged for
// each of its encoded heads, HTTP/1.1's and HTTP/3's (newEntry; HTTP/3's
// also for its field lists, http3HeadCharge): as much as its fields
// again, which either encoding stays within (20 bytes a name, 4 a line,
// where headerSize counts 32 a value).
func encodedHeadCharge(stored, edge http.Header, strip []string) int {
	return headerSize(stored) + headerSize(edge) + 32*len(strip) + http1HeadOverhead
}

func (hd *http1Head) size() int {
	return int(unsafe.Sizeof(*hd)) + 20*cap(hd.names) + 8*cap(hd.notModified) + cap(hd.lines) +
		cap(hd.cacheStatus) + cap(hd.serverTiming) + cap(hd.getFraming) + cap(hd.headFraming)
}

// http1Head is e's head under h's options: the stored one, or encoded now
// and stored.
func (h *Handler) http1Head(e *entry) *http1Head {
	return storedHead(&e.http1, h.encodedHeadOptions(), func(opts encodedHeadOptions) *http1Head {
		return h.encodeHTTP1Head(e, opts)
	})
}

// storedHead is the head p holds if it was encoded under opts, else
// encode's, stored in p.
func storedHead[T any, PT interface {
	*T
	options() encodedHeadOptions
}](p *atomic.Pointer[T], opts encodedHeadOptions, encode func(encodedHeadOptions) *T) *T {
	if hd := p.Load(); hd != nil && PT(hd).options() == opts {
		return hd
	}
	hd := encode(opts)
	p.Store(hd)
	return hd
}

func (hd *http1Head) options() encodedHeadOptions { return hd.opts }

// entryFields are the fields serveEntry gives a hit on e under opts: the
// stored ones and the forwarded edge-only ones less the stripped ones;
// and the sorted names of all these, stripped ones included (a field of
// such a name a handler before the cache adds is replaced or removed).
func entryFields(e *entry, opts encodedHeadOptions) (http.Header, []string) {
	hdr := make(http.Header, len(e.header)+len(e.edge))
	copyHeader(hdr, e.header)
	if opts.forwardEdge {
		copyHeader(hdr, e.edge)
	}
	var names []string
	for _, f := range e.policy.stripFields {
		hdr.Del(f)
		names = append(names, http.CanonicalHeaderKey(f))
	}
	for k := range hdr {
		names = append(names, k)
	}
	slices.Sort(names)
	return hdr, slices.Clip(slices.Compact(names))
}

// encodeHTTP1Head encodes e's head for opts (h's) as serveEntry and
// h1wire would write it.
func (h *Handler) encodeHTTP1Head(e *entry, opts encodedHeadOptions) *http1Head {
	hd := &http1Head{opts: opts}
	if !h.http1Writable(e) {
		return hd
	}
	hdr, names := entryFields(e, opts)
	hd.names = names
	for _, k := range h1wire.Unframed(e.status) {
		delete(hdr, k)
	}
	_, hd.dated = hdr["Date"]
	hd.timed = len(hdr["Server-Timing"]) > 0
	hd.getFraming = h1wire.AppendFraming(nil, hdr, e.status, http.MethodGet, e.body)
	hd.headFraming = h1wire.AppendFraming(nil, hdr, e.status, http.MethodHead, nil)
	hd.cacheStatus = h1wire.AppendFieldLines(nil, "Cache-Status", hdr["Cache-Status"])
	delete(hdr, "Cache-Status")
	delete(hdr, "Age")
	if !opts.compact {
		hd.serverTiming = h1wire.AppendFieldLines(nil, "Server-Timing", hdr["Server-Timing"])
		delete(hdr, "Server-Timing")
	}
	hd.offs = make([]int32, 0, len(hd.names)+1)
	var lines []byte
	for i, k := range hd.names {
		hd.offs = append(hd.offs, int32(len(lines)))
		if slices.Contains(h1wire.Unframed(http.StatusNotModified), k) {
			hd.notModified = append(hd.notModified, i)
		}
		lines = h1wire.AppendFieldLines(lines, k, hdr[k])
	}
	hd.offs = append(hd.offs, int32(len(lines)))
	hd.lines = slices.Clone(lines) // without append's spare capacity: charged
	hd.serverAt, hd.serverStored = slices.BinarySearch(hd.names, "Server")
	hd.ageAt, _ = slices.BinarySearch(hd.names, "Age")
	hd.statusAt, _ = slices.BinarySearch(hd.names, "Cache-Status")
	hd.timingAt, _ = slices.BinarySearch(hd.names, "Server-Timing")
	hd.kind = http1Encoded
	if hd.size() > encodedHeadCharge(e.header, e.edge, e.policy.stripFields) {
		return &http1Head{opts: opts, kind: http1ByFields}
	}
	return hd
}

// appendStored appends the stored lines of names[from:to], less a 304's
// unframed fields if notModified.
func (hd *http1Head) appendStored(dst []byte, from, to int, notModified bool) []byte {
	if notModified {
		for _, i := range hd.notModified {
			if from <= i && i < to {
				dst = append(dst, hd.lines[hd.offs[from]:hd.offs[i]]...)
				from = i + 1
			}
		}
	}
	return append(dst, hd.lines[hd.offs[from]:hd.offs[to]]...)
}

// hitField is a field a hit sets itself, to go before names[at]: its
// stored lines, then its values (as they are if own, the cache's values,
// which need no cleaning, else as net/http writes them), then (timing)
// the hit's Server-Timing member made now.
type hitField struct {
	name   string
	at     int
	stored []byte
	values []string
	own    bool
	timing bool
}

// maxHitFields bounds the fields a hit sets itself: Server, Age,
// Cache-Status, Server-Timing and those of the handlers before the cache
// (alt_svc's one). A hit with more is answered through the header map.
const maxHitFields = 8

// hitOwnFields are the fields a handler before the cache must not add for
// the encoded head to be the response's: those the cache sets on a hit,
// and those that change net/http's framing.
var hitOwnFields = map[string]bool{
	"Age": true, "Cache-Status": true, "Server-Timing": true, "Date": true,
	"Content-Length": true, "Content-Type": true, "Content-Encoding": true,
	"Transfer-Encoding": true, "Trailer": true, "Connection": true,
}

// answerFreshHTTP1 answers r, a fresh hit on d.e, with hd and the hit's
// own fields (those adders add among them), as serveDecided and
// h1wire would. It reports false, having written nothing but w's header
// map, when the hit must be answered through the header map.
func (h *Handler) answerFreshHTTP1(w frontdoor.HTTP1ResponseWriter, r *http.Request, d decision, hd *http1Head, start time.Time, adders []frontdoor.FieldAdder) bool {
	var own [maxHitFields]hitField
	n := 0
	if len(adders) == 0 {
		if !hd.serverStored {
			own[n] = hitField{name: "Server", at: hd.serverAt, values: caddyServerHeader, own: true}
			n++
		}
	} else {
		added := w.Header()
		added["Server"] = caddyServerHeader
		for _, a := range adders {
			a.AddFields(r, added)
		}
		for k, vs := range added {
			if hitOwnFields[k] || http.CanonicalHeaderKey(k) != k {
				return false
			}
			at, stored := slices.BinarySearch(hd.names, k)
			switch {
			case stored:
				continue // stored, forwarded or stripped: the entry's
			case n == len(own)-3:
				return false // no room left for Age, Cache-Status, Server-Timing
			}
			own[n] = hitField{name: k, at: at, values: vs}
			n++
		}
	}
	compact := hd.opts.compact
	hf := d.e.freshHitFields(h.statusItem, compact, d.e.age(d.now), d.ttl)
	own[n] = hitField{name: "Age", at: hd.ageAt, values: hf.ageValue, own: true}
	own[n+1] = hitField{name: "Cache-Status", at: hd.statusAt, stored: hd.cacheStatus, values: hf.status[len(hf.status)-1:], own: true}
	n += 2
	if !compact {
		st := hitField{name: "Server-Timing", at: hd.timingAt, stored: hd.serverTiming, own: true, timing: true}
		if tabled, ok := tabledHitTiming(start); ok && !hd.timed {
			st.values, st.timing = tabled, false
		}
		own[n] = st
		n++
	}
	fields := own[:n]
	for i := 1; i < len(fields); i++ {
		for j := i; j > 0 && fields[j].name < fields[j-1].name; j-- {
			fields[j], fields[j-1] = fields[j-1], fields[j]
		}
	}

	fastHits.Inc()
	freshHits.Inc()
	e := d.e
	code, body, framing := e.status, e.body, hd.getFraming
	notModified := notModified(r, e)
	switch {
	case notModified:
		code, body, framing = http.StatusNotModified, nil, nil
	case r.Method == http.MethodHead:
		body, framing = nil, hd.headFraming
	case h1wire.Unframed(code) != nil:
		body = nil
	}
	head := h1wire.AppendStatusLine(w.HeadBuffer(), code)
	from := 0
	for _, f := range fields {
		head = hd.appendStored(head, from, f.at, notModified)
		from = f.at
		head = append(head, f.stored...)
		if f.own {
			for _, v := range f.values {
				head = appendLine(head, f.name, v)
			}
		} else {
			head = h1wire.AppendFieldLines(head, f.name, f.values)
		}
		if f.timing {
			head = append(head, "Server-Timing: "...)
			head = appendHitTiming(head, start)
			head = append(head, "\r\n"...)
		}
	}
	head = hd.appendStored(head, from, len(hd.names), notModified)
	if !hd.dated {
		head = h1wire.AppendDate(head, start)
	}
	head = append(head, framing...)
	w.WriteHead(append(head, "\r\n"...), body)
	h.maybeRefreshAhead(e, d.key, r, nil, d.ttl, d.now) // counts the hit; not near its end
	return true
}

// appendLine appends a line of name with value v, a value of the
// cache's own that net/http writes as it is.
func appendLine(dst []byte, name, v string) []byte {
	dst = append(dst, name...)
	dst = append(dst, ": "...)
	dst = append(dst, v...)
	return append(dst, "\r\n"...)
}
