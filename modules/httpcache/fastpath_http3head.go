package httpcache

import (
	"bytes"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/quic-go/qpack"

	"github.com/lastmile-edge/lastmile/internal/frontdoor"
)

// An HTTP/3 fresh hit's fields, as an HTTP/1.1 hit's head
// (fastpath_http1head.go), depend on the stored entry and two options
// but for the few the hit sets itself (Server, the handlers' before the
// cache, Age, Cache-Status's member, Server-Timing's, Date). quic-go's
// HTTP/3 server encodes a response's header map with QPACK for every
// response (a map walk, a lower-cased name and a Huffman-coded value per
// field: a tenth of an HTTP/3 hit's CPU on the edge). Its QPACK encoder
// uses no dynamic table, so a field line's encoding depends on that field
// alone: the entry keeps its stored fields' lines encoded once, and a hit
// writes them behind its :status and before its own fields' lines,
// through the writer quic-go's patch gives handlers
// (http3.EncodedResponseWriter). What the HTTP/3 writer adds to a
// response written through the map (Date, a buffered body's
// Content-Length, a sniffed Content-Type) is encoded here as it would add
// it; a response whose framing the writer would change otherwise goes
// through the map. The lines are never written to once stored, and are
// charged with the entry (http3HeadCharge).

// encodedResponseWriter is quic-go's http3.EncodedResponseWriter (lastmile's
// patch), spelled here so that the edge builds against upstream quic-go,
// whose writer does not have it: its hits then go through the header map.
type encodedResponseWriter interface {
	WriteEncodedResponse(status int, fieldSection, body []byte) error
}

// fieldsResponseWriter is quic-go's http3.FieldsResponseWriter (lastmile's
// patch), spelled here for the same reason. On a connection whose client
// offered a QPACK dynamic table (browsers do), quic-go encodes responses
// against it, and a section given encoded would be decoded to be encoded
// again (13% of the edge's CPU per hit, docs/BENCHMARKS.md): a hit there
// gives its fields as a list.
type fieldsResponseWriter interface {
	QPACKTable() bool
	WriteFieldsResponse(status int, fields []qpack.HeaderField, body []byte) error
}

// http3FastHits counts HTTP/3 fast hits by how their fields were encoded:
// against the connection's QPACK dynamic table (its client offered one, as
// browsers do) or against the static table alone. The share says how much
// of a site's HTTP/3 traffic the table's work and savings apply to.
var (
	http3FastHits = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "lastmile", Subsystem: "cache", Name: "http3_fast_hits_total",
		Help: "HTTP/3 hits answered on the fast hit path, by the QPACK table their fields were encoded against (dynamic: the client offered one; static).",
	}, []string{"qpack_table"})
	http3FastHitsDynamic = http3FastHits.WithLabelValues("dynamic")
	http3FastHitsStatic  = http3FastHits.WithLabelValues("static")
)

// http3SmallBody is quic-go's maxSmallResponseSize: its writer buffers a
// body under this size and then adds Content-Length and sniffs
// Content-Type; a larger one is written after a head without them.
const http3SmallBody = 4096

// http3Head is an entry's HTTP/3 response fields less the hit's own,
// QPACK-encoded, for one set of options.
type http3Head struct {
	opts encodedHeadOptions
	// encoded is false when hits go through the header map.
	encoded bool
	status  string // e.status in decimal, for :status
	// names are the fields the response takes from the entry, sorted:
	// stored, forwarded edge-only and stripped ones. A field of such a
	// name that a handler before the cache adds is replaced or removed.
	names []string
	// lines are the encoded lines of every field the response takes
	// from the entry but Age (the hit's), stored Cache-Status and
	// Server-Timing members included: the hit's member goes after them,
	// as writeFreshHit appends it.
	lines []byte
	// getLines follow lines on a GET: the Content-Length and sniffed
	// Content-Type the writer adds to a buffered body. A HEAD has
	// neither: its handler writes no body, and the writer then adds
	// none (server_conn.go's autoContentLength).
	getLines []byte
	// fields and getFields are lines and getLines as lists, for
	// connections with a QPACK table.
	fields, getFields []qpack.HeaderField
	dated             bool // the response has the stored Date: the hit adds none
	timed             bool // the stored response has Server-Timing: the hit's member is not the table's
}

func (hd *http3Head) size() int {
	n := int(unsafe.Sizeof(*hd)) + len(hd.status) + 16*cap(hd.names) + cap(hd.lines) + cap(hd.getLines)
	// The lists' values are the stored fields' strings; their names are
	// lower-cased copies.
	for _, fs := range [][]qpack.HeaderField{hd.fields, hd.getFields} {
		for _, f := range fs {
			n += int(unsafe.Sizeof(f)) + len(f.Name)
		}
	}
	return n
}

// http3Head is e's HTTP/3 head under h's options: the stored one, or
// encoded now and stored.
func (h *Handler) http3Head(e *entry) *http3Head {
	return storedHead(&e.http3, h.encodedHeadOptions(), func(opts encodedHeadOptions) *http3Head {
		return h.encodeHTTP3Head(e, opts)
	})
}

func (hd *http3Head) options() encodedHeadOptions { return hd.opts }

// encodeHTTP3Head encodes e's fields for opts as serveEntry sets them and
// quic-go's HTTP/3 writer would encode them.
func (h *Handler) encodeHTTP3Head(e *entry, opts encodedHeadOptions) *http3Head {
	hd := &http3Head{opts: opts}
	if !bodyAllowedForStatus(e.status) {
		return hd // no content (1xx, 204, 304): such rare hits go through the map
	}
	hdr, names := entryFields(e, opts)
	for k := range hdr {
		if k == "Trailer" || strings.HasPrefix(k, http.TrailerPrefix) {
			return hd // trailers: the writer's to declare and send
		}
	}
	hd.names = names

	var get []qpack.HeaderField
	if cl, ok := hdr["Content-Length"]; ok {
		// The writer sends a body longer than its Content-Length short,
		// and drops an unparsable one.
		if len(cl) != 1 {
			return hd
		}
		if n, err := strconv.ParseUint(cl[0], 10, 63); err != nil || n != uint64(len(e.body)) {
			return hd
		}
	} else if len(e.body) < http3SmallBody {
		get = append(get, qpack.HeaderField{Name: "content-length", Value: strconv.Itoa(len(e.body))})
	}
	_, typed := hdr["Content-Type"]
	if !typed && hdr.Get("Content-Encoding") == "" && len(e.body) > 0 && len(e.body) < http3SmallBody {
		get = append(get, qpack.HeaderField{Name: "content-type", Value: http.DetectContentType(e.body)})
	}
	_, hd.dated = hdr["Date"]
	hd.timed = len(hdr["Server-Timing"]) > 0
	delete(hdr, "Age")
	var fields []qpack.HeaderField
	for k, vs := range hdr {
		for _, v := range vs {
			fields = append(fields, qpack.HeaderField{Name: strings.ToLower(k), Value: v})
		}
	}
	hd.lines, hd.fields = encodeFieldLines(fields...), slices.Clip(fields)
	hd.getLines, hd.getFields = encodeFieldLines(get...), slices.Clip(get)
	hd.status = strconv.Itoa(e.status)
	hd.encoded = true
	if hd.size() > http3HeadCharge(e.header, e.edge, e.policy.stripFields) {
		return &http3Head{opts: opts}
	}
	return hd
}

// http3HeadCharge is what an entry is charged for its HTTP/3 head (newEntry):
// an encoded head's charge, and the fields again as the lists hits on
// connections with a QPACK table give quic-go (a qpack.HeaderField and a
// lower-cased name each; the values are the stored strings).
func http3HeadCharge(stored, edge http.Header, strip []string) int {
	n := encodedHeadCharge(stored, edge, strip)
	for _, h := range []http.Header{stored, edge} {
		for k, vs := range h {
			n += len(vs) * (int(unsafe.Sizeof(qpack.HeaderField{})) + len(k))
		}
	}
	return n
}

// bodyAllowedForStatus is quic-go's HTTP/3 writer's test (RFC 9110
// section 6.4.1): the statuses whose response has no content.
func bodyAllowedForStatus(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

// encodeFieldLines is fields' QPACK field lines, as quic-go's encoder
// writes them (static table references, Huffman-coded strings), less the
// field section's prefix: the encoder writes it before its first field,
// and a section has one.
func encodeFieldLines(fields ...qpack.HeaderField) []byte {
	if len(fields) == 0 {
		return nil
	}
	var b bytes.Buffer
	enc := qpack.NewEncoder(&b)
	for _, f := range fields {
		_ = enc.WriteField(f) // a bytes.Buffer does not fail
	}
	return slices.Clone(b.Bytes()[qpackPrefixLen:])
}

// qpackPrefixLen is the length of the prefix quic-go's QPACK encoder
// writes: a Required Insert Count and a Base of 0 (no dynamic table).
const qpackPrefixLen = 2

// The fields a hit sets itself whose values repeat, with their lines:
// Caddy's Server, and full hit_fields' Server-Timing values of the table.
var (
	http3Server    = newRepeatedField("server", caddyServerHeader[0])
	http3HitTiming = func() (t [hitTimingMax]repeatedField) {
		for i := range t {
			t[i] = newRepeatedField("server-timing", hitTiming[i][0])
		}
		return t
	}()
)

// repeatedField is a field many hits send, as a list of one and as its
// encoded line.
type repeatedField struct {
	field []qpack.HeaderField
	line  []byte
}

func newRepeatedField(name, value string) repeatedField {
	f := qpack.HeaderField{Name: name, Value: value}
	return repeatedField{field: []qpack.HeaderField{f}, line: encodeFieldLines(f)}
}

// http3Date is the Date field of the second a hit starts in, made once a
// second for every entry.
func http3Date(now time.Time) repeatedField {
	sec := now.Unix()
	if d := http3Dated.Load(); d != nil && d.sec == sec {
		return d.repeatedField
	}
	d := &datedField{sec, newRepeatedField("date", now.UTC().Format(http.TimeFormat))}
	http3Dated.Store(d)
	return d.repeatedField
}

type datedField struct {
	sec int64
	repeatedField
}

var http3Dated atomic.Pointer[datedField]

// http3Section is a hit's fields in the making, pooled: without a QPACK
// table a field section, encoded lines written after its :status; with
// one a list of fields. The writer copies either into the response's own
// buffer.
type http3Section struct {
	b      bytes.Buffer
	enc    *qpack.Encoder
	list   []qpack.HeaderField
	asList bool
	timing [48]byte
}

var http3Sections = sync.Pool{New: func() any {
	s := &http3Section{}
	s.enc = qpack.NewEncoder(&s.b)
	return s
}}

// start begins a section, as a list or encoded.
func (s *http3Section) start(asList bool) {
	s.asList = asList
	s.list = s.list[:0]
	s.b.Reset()
	_ = s.enc.Close() // the next field starts a section: its prefix first
}

// stored adds fields whose lines were encoded once.
func (s *http3Section) stored(lines []byte, fields []qpack.HeaderField) {
	if s.asList {
		s.list = append(s.list, fields...)
	} else {
		s.b.Write(lines)
	}
}

// add adds a field of this hit's.
func (s *http3Section) add(f qpack.HeaderField) {
	if s.asList {
		s.list = append(s.list, f)
	} else {
		_ = s.enc.WriteField(f) // writes to a bytes.Buffer do not fail
	}
}

// done lets the pool keep s without the entries' strings.
func (s *http3Section) done() {
	clear(s.list)
	http3Sections.Put(s)
}

// answerFreshHTTP3 answers r, a fresh hit on d.e, with hd and the hit's
// own fields (hdr, the response's header map, holds those adders add), as
// serveDecided and quic-go's HTTP/3 writer would. It reports false,
// having written nothing but hdr, when the hit must be answered through
// the header map.
func (h *Handler) answerFreshHTTP3(w encodedResponseWriter, hdr http.Header, r *http.Request, d decision, hd *http3Head, start time.Time, adders []frontdoor.FieldAdder) bool {
	e := d.e
	if !hd.encoded || e.status == http.StatusOK && r.Header.Get("Range") != "" || notModified(r, e) {
		return false
	}
	s := http3Sections.Get().(*http3Section)
	defer s.done()
	fw, ok := w.(fieldsResponseWriter)
	s.start(ok && fw.QPACKTable())
	s.add(qpack.HeaderField{Name: ":status", Value: hd.status})
	s.stored(hd.lines, hd.fields)
	if r.Method == http.MethodGet {
		s.stored(hd.getLines, hd.getFields)
	}
	if len(adders) == 0 {
		if _, named := slices.BinarySearch(hd.names, "Server"); !named {
			s.stored(http3Server.line, http3Server.field)
		}
	} else {
		// As serveDecided: Server, then what the adders add (which may
		// replace it), less what the entry replaces or strips.
		hdr["Server"] = caddyServerHeader
		for _, a := range adders {
			a.AddFields(r, hdr)
		}
		for k := range hdr {
			if hitOwnFields[k] || http.CanonicalHeaderKey(k) != k {
				return false
			}
		}
		for k, vs := range hdr {
			if _, named := slices.BinarySearch(hd.names, k); named {
				continue
			}
			for _, v := range vs {
				s.add(qpack.HeaderField{Name: strings.ToLower(k), Value: v})
			}
		}
	}
	compact := hd.opts.compact
	hf := e.freshHitFields(h.statusItem, compact, e.age(d.now), d.ttl)
	s.add(qpack.HeaderField{Name: "age", Value: hf.ageValue[0]})
	s.add(qpack.HeaderField{Name: "cache-status", Value: hf.status[len(hf.status)-1]})
	if !compact {
		if tenths, ok := hitTimingTenths(start); ok && !hd.timed {
			s.stored(http3HitTiming[tenths].line, http3HitTiming[tenths].field)
		} else {
			timing := appendHitTiming(s.timing[:0], start)
			if s.asList {
				// A connection's table may keep the value, and qlog records
				// it later: a string of its own.
				s.add(qpack.HeaderField{Name: "server-timing", Value: string(timing)})
			} else {
				// The encoder copies the value before the buffer is reused.
				s.add(qpack.HeaderField{Name: "server-timing", Value: unsafe.String(unsafe.SliceData(timing), len(timing))})
			}
		}
	}
	if !hd.dated {
		date := http3Date(start)
		s.stored(date.line, date.field)
	}
	fastHits.Inc()
	freshHits.Inc()
	// A reset stream: nothing more to send.
	if s.asList {
		http3FastHitsDynamic.Inc()
		_ = fw.WriteFieldsResponse(e.status, s.list, e.body)
	} else {
		http3FastHitsStatic.Inc()
		_ = w.WriteEncodedResponse(e.status, s.b.Bytes(), e.body)
	}
	h.maybeRefreshAhead(e, d.key, r, nil, d.ttl, d.now) // counts the hit; not near its end
	return true
}
