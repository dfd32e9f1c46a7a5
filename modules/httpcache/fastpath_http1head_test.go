package httpcache

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/lastmile-edge/lastmile/internal/frontdoor"
	"github.com/lastmile-edge/lastmile/internal/h1wire"
)

// http1Recorder is client_tcp's side of AnswerHTTP1: the header map and
// body the map path writes, or the head the front encoded.
type http1Recorder struct {
	hdr     http.Header
	status  int
	body    []byte
	head    []byte
	encoded bool
}

func (w *http1Recorder) Header() http.Header { return w.hdr }
func (w *http1Recorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}
func (w *http1Recorder) Write(p []byte) (int, error) {
	w.WriteHeader(200)
	w.body = p
	return len(p), nil
}
func (w *http1Recorder) HeadBuffer() []byte          { return nil }
func (w *http1Recorder) WriteHead(head, body []byte) { w.head, w.body, w.encoded = head, body, true }

// encoded is the response as client_tcp writes it.
func (w *http1Recorder) encoded1(method string, now time.Time) string {
	if w.encoded {
		return string(w.head) + string(w.body)
	}
	code := w.status
	if code == 0 {
		code = http.StatusOK
	}
	body := w.body
	if method == http.MethodHead || h1wire.Unframed(code) != nil {
		body = nil
	}
	var enc h1wire.Encoder
	return string(enc.AppendHead(nil, w.hdr, code, method, body, now)) + string(body)
}

// fieldAdder adds one field, as alt_svc adds Alt-Svc.
type fieldAdder struct{ name, value string }

func (a fieldAdder) PassesThrough(*http.Request) bool { return true }
func (a fieldAdder) AddFields(_ *http.Request, h http.Header) {
	h[a.name] = append(h[a.name], a.value)
}

// clockFields are the values that differ by the clock between two hits.
var clockFields = regexp.MustCompile(`(?m)^(Date|Age|Server-Timing): (cache;desc=hit, edge;dur=.*|.*)\r$`)

var http1HeadCaches sync.Map // options -> *Handler

// http1HeadCache is a cache with the options of bits: forward_edge_fields,
// compact hit fields, another status name.
func http1HeadCache(tb testing.TB, bits uint8) *Handler {
	if h, ok := http1HeadCaches.Load(bits & 7); ok {
		return h.(*Handler)
	}
	h := &Handler{Name: "http1head-" + strconv.Itoa(int(bits&7)), MaxBytes: 16 << 20, MaxObjectBytes: 1 << 20,
		HeuristicMax: 3600, OriginTimeout: 1, ForwardEdgeFields: bits&1 != 0}
	h.HitFields = hitFieldsFull
	if bits&2 != 0 {
		h.HitFields = hitFieldsCompact
	}
	h.statusItem = statusItem(defaultStatusName)
	if bits&4 != 0 {
		h.statusItem = statusItem("edge two")
	}
	store, err := openStore(h.Name, uint64(h.MaxBytes), "")
	if err != nil {
		tb.Fatal(err)
	}
	h.store, h.flights = store, store.flights
	http1HeadCaches.Store(bits&7, h)
	return h
}

var http1HeadPaths atomic.Int64

// checkHTTP1Head stores the response origin makes, then answers a GET, a
// HEAD and a conditional GET for it both ways, the head encoded once for
// the entry and the header map, with adders before the cache, and fails
// if they differ but for the clock's fields. It returns how many it
// compared: the others were not stored, or were answered through the map.
func checkHTTP1Head(t *testing.T, h *Handler, adders []frontdoor.FieldAdder, origin caddyhttp.HandlerFunc) (compared int) {
	path := "/h" + strconv.FormatInt(http1HeadPaths.Add(1), 10)
	req := httptest.NewRequest(http.MethodGet, "http://edge.example"+path, nil)
	if err := h.ServeHTTP(&discardWriter{h: make(http.Header)}, req, origin); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*http.Request{
		httptest.NewRequest(http.MethodGet, "http://edge.example"+path, nil),
		httptest.NewRequest(http.MethodHead, "http://edge.example"+path, nil),
		func() *http.Request {
			r := httptest.NewRequest(http.MethodGet, "http://edge.example"+path, nil)
			r.Header.Set("If-None-Match", `"e1"`)
			return r
		}(),
	} {
		d, ok := h.fastDecision(r)
		if !ok || d.verdict != verdictFresh {
			return compared // not stored, or not fresh: not this path's
		}
		hd := h.http1Head(d.e)
		if hd.kind != http1Encoded {
			return compared
		}
		start := time.Now()
		enc := &http1Recorder{hdr: make(http.Header)}
		if !h.answerFreshHTTP1(enc, r, d, hd, start, adders) {
			continue // answered through the map: nothing to compare
		}
		byMap := &http1Recorder{hdr: make(http.Header)}
		h.serveDecided(byMap, r, d, start, adders)
		got, want := enc.encoded1(r.Method, start), byMap.encoded1(r.Method, start)
		if clockFields.ReplaceAllString(got, "$1: -\r") != clockFields.ReplaceAllString(want, "$1: -\r") {
			t.Fatalf("%s %s: encoded once:\n%q\nby the header map:\n%q", r.Method, r.Header, got, want)
		}
		compared++
	}
	return compared
}

// The head encoded once per entry is the header map's, byte for byte,
// for stored responses of every shape the encoding handles apart.
func TestHTTP1HeadMatchesTheHeaderMap(t *testing.T) {
	respond := func(status int, body string, fields ...string) caddyhttp.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) error {
			for i := 0; i+1 < len(fields); i += 2 {
				w.Header()[fields[i]] = append(w.Header()[fields[i]], fields[i+1])
			}
			w.WriteHeader(status)
			_, err := w.Write([]byte(body))
			return err
		}
	}
	cc := "Cache-Control"
	shapes := map[string]caddyhttp.HandlerFunc{
		"typed":            respond(200, "hello", cc, "max-age=600", "Content-Type", "text/plain", "Etag", `"e1"`),
		"sniffed":          respond(200, "<html>hi</html>", cc, "max-age=600", "Etag", `"e1"`),
		"encoded untyped":  respond(200, "\x1f\x8b", cc, "max-age=600", "Content-Encoding", "gzip"),
		"empty":            respond(200, "", cc, "max-age=600"),
		"dated, served by": respond(200, "x", cc, "max-age=600", "Date", time.Now().UTC().Format(http.TimeFormat), "Server", "origin/1"),
		"nearer caches": respond(200, "x", cc, "max-age=600", "Cache-Status", "a; hit", "Cache-Status", "b; fwd=miss",
			"Server-Timing", "db;dur=3", "Age", "7"),
		"edge fields": respond(200, "x", cc, "max-age=600", "Cdn-Cache-Control", "max-age=900", "Surrogate-Key", "k1 k2",
			"Cache-Tag", "t"),
		"stripped": respond(200, "x", cc, `max-age=600, no-cache="X-Secret, Server, Cache-Status, Content-Type", private="Server-Timing"`,
			"X-Secret", "s", "Server", "origin", "Cache-Status", "a; hit", "Content-Type", "text/plain", "Server-Timing", "db;dur=1",
			"Etag", `"e1"`),
		"odd fields": respond(200, "x", cc, "max-age=600", "x-lower", "v", "Bad Name", "v", "X-Crlf", "a\r\nb", "X-Pad", " \tp \t",
			"X-Multi", "1", "X-Multi", "2", "Alt-Svc", `h3=":443"`),
		"many large fields": respond(200, "x", manyFields([]string{cc, "max-age=600"}, 48, 200)...),
		"204":               respond(204, "", cc, "max-age=600", "Content-Type", "text/plain"),
		"410":               respond(410, "gone", cc, "max-age=600"),
		"length of its own": respond(200, "12345", cc, "max-age=600", "Content-Length", "5", "Content-Type", "a/b", "Etag", `"e1"`),
	}
	adders := map[string]struct {
		adders  []frontdoor.FieldAdder
		encoded bool // the hits' heads are encoded once, else they go through the map
	}{
		"no adders":        {nil, true},
		"alt_svc":          {[]frontdoor.FieldAdder{fieldAdder{"Alt-Svc", `h3=":443"; ma=86400`}}, true},
		"a stored field":   {[]frontdoor.FieldAdder{fieldAdder{"Etag", `"added"`}, fieldAdder{"X-Secret", "added"}, fieldAdder{"Server", "added"}}, true},
		"a value to clean": {[]frontdoor.FieldAdder{fieldAdder{"X-Added", " a\r\nb "}}, true},
		"an invalid name":  {[]frontdoor.FieldAdder{fieldAdder{"Bad Name", "v"}}, true},
		"before and after": {[]frontdoor.FieldAdder{fieldAdder{"Zz", "v"}, fieldAdder{"Aa", "v"}, fieldAdder{"Cache-Tag", "v"}}, true},
		"framing field":    {[]frontdoor.FieldAdder{fieldAdder{"Content-Type", "a/b"}}, false},
		"the cache's own":  {[]frontdoor.FieldAdder{fieldAdder{"Cache-Status", "x"}}, false},
		"lower-case":       {[]frontdoor.FieldAdder{fieldAdder{"x-added", "v"}}, false},
		"more than the bound": {[]frontdoor.FieldAdder{fieldAdder{"A1", "v"}, fieldAdder{"A2", "v"}, fieldAdder{"A3", "v"},
			fieldAdder{"A4", "v"}, fieldAdder{"A5", "v"}, fieldAdder{"A6", "v"}}, false},
	}
	for bits := range uint8(8) {
		h := http1HeadCache(t, bits)
		for shape, origin := range shapes {
			for name, a := range adders {
				t.Run(fmt.Sprintf("options %03b/%s/%s", bits, shape, name), func(t *testing.T) {
					n := checkHTTP1Head(t, h, a.adders, origin)
					switch {
					case !a.encoded && n > 0:
						t.Fatalf("%d hits encoded once, want all through the map", n)
					case a.encoded && n != 3:
						t.Fatalf("%d of 3 hits encoded once", n)
					}
				})
			}
		}
	}
}

// manyFields is fields, then n fields of size-byte values.
func manyFields(fields []string, n, size int) []string {
	for i := range n {
		fields = append(fields, fmt.Sprintf("X-Field-%02d", i), strings.Repeat("v", size))
	}
	return fields
}

// FuzzHTTP1Head holds the head encoded once to the header map's for
// stored fields, stripped ones and added ones of any name and value.
func FuzzHTTP1Head(f *testing.F) {
	f.Add(uint8(0), "X-A", "1", "Alt-Svc", `h3=":443"`, "X-A")
	f.Add(uint8(3), "cache-status", "x", "Server-Timing", "y", "Server-Timing")
	f.Add(uint8(5), "Server", "o", "Age", "1", "Server")
	f.Add(uint8(1), "Surrogate-Key", "k", "Bad Name", "v\r\n", "Surrogate-Key")
	f.Fuzz(func(t *testing.T, bits uint8, stored, storedValue, added, addedValue, strip string) {
		h := http1HeadCache(t, bits)
		origin := func(w http.ResponseWriter, r *http.Request) error {
			w.Header()[stored] = []string{storedValue}
			w.Header().Set("Cache-Control", `max-age=600, no-cache="`+strip+`"`)
			w.Header().Set("Etag", `"e1"`)
			_, err := w.Write([]byte("body"))
			return err
		}
		checkHTTP1Head(t, h, []frontdoor.FieldAdder{fieldAdder{added, addedValue}}, origin)
	})
}
