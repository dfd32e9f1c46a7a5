package httpcache

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/quic-go/qpack"
)

// encodedRecorder is an HTTP/3 response writer (lastmile's quic-go patch)
// that keeps what WriteEncodedResponse was given, decoded.
type encodedRecorder struct {
	discardWriter
	encoded int
	status  int
	fields  []qpack.HeaderField
	body    []byte
}

func (w *encodedRecorder) WriteEncodedResponse(status int, section, body []byte) error {
	w.encoded++
	w.status, w.body = status, body
	decode := qpack.NewDecoder().Decode(section)
	for {
		f, err := decode()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		w.fields = append(w.fields, f)
	}
}

// tableRecorder is an encodedRecorder on a connection with a QPACK table:
// it keeps what WriteFieldsResponse was given.
type tableRecorder struct {
	encodedRecorder
	lists int
}

func (w *tableRecorder) QPACKTable() bool { return true }

func (w *tableRecorder) WriteFieldsResponse(status int, fields []qpack.HeaderField, body []byte) error {
	w.lists++
	w.status, w.body, w.fields = status, body, slices.Clone(fields)
	return nil
}

func (w *encodedRecorder) values(name string) []string {
	var vs []string
	for _, f := range w.fields {
		if f.Name == name {
			vs = append(vs, f.Value)
		}
	}
	return vs
}

// A fresh hit over HTTP/3 writes its fields encoded: the stored ones, then
// the hit's own after the stored members of Cache-Status and
// Server-Timing, and what quic-go's writer adds to a buffered body.
func TestHTTP3HitWritesEncodedFields(t *testing.T) {
	h := http1HeadCache(t, 0)
	path := storeShape(t, h, 200, "<html>x</html>", "Cache-Control", "max-age=600",
		"Cache-Status", "a; hit", "Server-Timing", "db;dur=3", "Age", "9")
	w := &encodedRecorder{discardWriter: discardWriter{h: make(http.Header)}}
	if !h.serveFast(w, httptest.NewRequest(http.MethodGet, "http://edge.example"+path, nil), 0, nil) || w.encoded != 1 {
		t.Fatalf("not answered with encoded fields (%d)", w.encoded)
	}
	if w.status != 200 || string(w.body) != "<html>x</html>" || w.fields[0] != (qpack.HeaderField{Name: ":status", Value: "200"}) {
		t.Fatalf("status %d, body %q, first field %v", w.status, w.body, w.fields[0])
	}
	want := map[string]string{
		"cache-control":  "max-age=600",
		"cache-status":   "a; hit|" + defaultStatusName + "; hit; ttl=",
		"server-timing":  "db;dur=3|cache;desc=hit, edge;dur=",
		"server":         "Caddy",
		"content-length": "14",
		"content-type":   "text/html; charset=utf-8",
		"age":            "",
	}
	for name, prefix := range want {
		got := strings.Join(w.values(name), "|")
		if !strings.HasPrefix(got, prefix) || got == "" {
			t.Errorf("%s: %q, want %q...", name, got, prefix)
		}
	}
	if age := w.values("age"); len(age) != 1 {
		t.Errorf("age %q: want one, the hit's", age)
	}
	if len(w.values("date")) != 1 {
		t.Errorf("date %q: want one, the hit's", w.values("date"))
	}
}

// hitBothWays serves a fast hit on path as on a connection without a QPACK
// table and as on one with a table.
func hitBothWays(t *testing.T, h *Handler, method, path string) (*encodedRecorder, *tableRecorder) {
	t.Helper()
	encoded := &encodedRecorder{discardWriter: discardWriter{h: make(http.Header)}}
	listed := &tableRecorder{encodedRecorder: encodedRecorder{discardWriter: discardWriter{h: make(http.Header)}}}
	for _, w := range []interface {
		http.ResponseWriter
		encodedResponseWriter
	}{encoded, listed} {
		if !h.serveFast(w, httptest.NewRequest(method, "http://edge.example"+path, nil), 0, nil) {
			t.Fatalf("%s %s: not a fast hit", method, path)
		}
	}
	return encoded, listed
}

// On a connection with a QPACK table, a hit gives quic-go the same fields
// as a list, in the same order, for GET and HEAD.
func TestHTTP3HitListsFieldsForATable(t *testing.T) {
	h := http1HeadCache(t, 0)
	path := storeShape(t, h, 200, "<html>x</html>", "Cache-Control", "max-age=600", "Cache-Status", "a; hit", "Age", "9")
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		encoded, listed := hitBothWays(t, h, method, path)
		if encoded.encoded != 1 || listed.lists != 1 || listed.encoded != 0 || listed.status != encoded.status || string(listed.body) != string(encoded.body) {
			t.Fatalf("%s: encoded %d, listed %d (encoded %d), status %d and %d", method, encoded.encoded, listed.lists, listed.encoded, encoded.status, listed.status)
		}
		// The hits' own timings differ; every other field is the same.
		mask := func(fs []qpack.HeaderField) (out []qpack.HeaderField) {
			for _, f := range fs {
				if f.Name == "server-timing" || f.Name == "date" {
					f.Value = ""
				}
				out = append(out, f)
			}
			return out
		}
		if got, want := mask(listed.fields), mask(encoded.fields); !slices.Equal(got, want) {
			t.Errorf("%s: listed %v, encoded %v", method, got, want)
		}
	}
}

// An entry of many short fields stays within its charge with its field
// lists: its HTTP/3 hits are encoded, with a table and without.
func TestHTTP3HitManyShortFieldsEncoded(t *testing.T) {
	h := http1HeadCache(t, 0)
	fields := []string{"Cache-Control", "max-age=600"}
	for i := range 30 {
		fields = append(fields, "X-F"+strconv.Itoa(i), "a")
	}
	encoded, listed := hitBothWays(t, h, http.MethodGet, storeShape(t, h, 200, "x", fields...))
	if encoded.encoded != 1 || listed.lists != 1 || len(listed.values("x-f29")) != 1 {
		t.Fatalf("encoded %d, listed %d: the head went over its charge", encoded.encoded, listed.lists)
	}
}

// Hits whose response quic-go's writer would frame otherwise, and those
// serveEntry answers otherwise, go through the header map.
func TestHTTP3HitsThroughTheMap(t *testing.T) {
	h := http1HeadCache(t, 0)
	cc := "Cache-Control"
	for name, tc := range map[string]struct {
		path   string
		method string
		header []string
	}{
		"204":                     {storeShape(t, h, 204, "", cc, "max-age=600"), http.MethodGet, nil},
		"trailer":                 {storeShape(t, h, 200, "x", cc, "max-age=600", "Trailer", "X-T"), http.MethodGet, nil},
		"wrong length":            {storeShape(t, h, 200, "xyz", cc, "max-age=600", "Content-Length", "2"), http.MethodGet, nil},
		"head without length, ok": {storeShape(t, h, 200, "x", cc, "max-age=600"), http.MethodHead, nil},
		"not modified":            {storeShape(t, h, 200, "x", cc, "max-age=600", "Etag", `"e"`), http.MethodGet, []string{"If-None-Match", `"e"`}},
		"range":                   {storeShape(t, h, 200, "xyz", cc, "max-age=600"), http.MethodGet, []string{"Range", "bytes=0-1"}},
		"a length of its own, ok": {storeShape(t, h, 200, "xy", cc, "max-age=600", "Content-Length", "2"), http.MethodHead, nil},
	} {
		t.Run(name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, "http://edge.example"+tc.path, nil)
			for i := 0; i+1 < len(tc.header); i += 2 {
				r.Header.Set(tc.header[i], tc.header[i+1])
			}
			w := &encodedRecorder{discardWriter: discardWriter{h: make(http.Header)}}
			if !h.serveFast(w, r, 0, nil) {
				t.Fatal("not a fast hit")
			}
			if encoded := strings.HasSuffix(name, ", ok"); (w.encoded == 1) != encoded {
				t.Fatalf("encoded %d times, want encoded %v", w.encoded, encoded)
			}
			if w.encoded == 0 && w.h.Get("Cache-Status") == "" {
				t.Fatalf("the map holds no hit: %v", w.h)
			}
		})
	}
}

var shapePaths int

// storeShape stores the response of status, body and fields (in pairs) at
// a new path of h's, and returns the path.
func storeShape(t *testing.T, h *Handler, status int, body string, fields ...string) string {
	t.Helper()
	shapePaths++
	path := "/h3-" + strconv.Itoa(shapePaths)
	origin := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		for i := 0; i+1 < len(fields); i += 2 {
			w.Header()[fields[i]] = append(w.Header()[fields[i]], fields[i+1])
		}
		w.WriteHeader(status)
		_, err := io.WriteString(w, body)
		return err
	})
	if err := h.ServeHTTP(&discardWriter{h: make(http.Header)}, httptest.NewRequest(http.MethodGet, "http://edge.example"+path, nil), origin); err != nil {
		t.Fatal(err)
	}
	return path
}
