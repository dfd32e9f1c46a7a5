// Package h1wire encodes an HTTP/1.1 response head byte for byte as
// net/http's server writes it for a handler's response to a keep-alive
// GET or HEAD (its chunkWriter.writeHeader): the status line, the
// handler's fields sorted by name (names net/http finds invalid left out,
// values with CR and LF as spaces, trimmed), then the Date, Content-Length
// and sniffed Content-Type it adds. client_tcp writes the hits it answers
// below net/http with it, and edge_cache encodes a stored entry's head
// once with it (modules/httpcache/fastpath_http1head.go).
package h1wire

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
)

// Encoder encodes a handler's response head; its buffer of names is
// reused from response to response.
type Encoder struct{ names []string }

// AppendHead appends the head of the response with code, fields hdr and
// body to a request of method (body nil for a HEAD, and for a code
// without a body: Unframed) to dst. It takes Unframed(code) out of hdr.
func (e *Encoder) AppendHead(dst []byte, hdr http.Header, code int, method string, body []byte, now time.Time) []byte {
	for _, k := range Unframed(code) {
		delete(hdr, k)
	}
	dst = AppendStatusLine(dst, code)
	e.names = e.names[:0]
	for k := range hdr {
		e.names = append(e.names, k)
	}
	slices.Sort(e.names)
	for _, k := range e.names {
		dst = AppendFieldLines(dst, k, hdr[k])
	}
	if _, dated := hdr["Date"]; !dated {
		dst = AppendDate(dst, now)
	}
	dst = AppendFraming(dst, hdr, code, method, body)
	return append(dst, "\r\n"...)
}

// AppendStatusLine appends the status line of a response with code.
func AppendStatusLine(dst []byte, code int) []byte {
	dst = append(dst, "HTTP/1.1 "...)
	dst = strconv.AppendInt(dst, int64(code), 10)
	dst = append(dst, ' ')
	dst = append(dst, http.StatusText(code)...)
	return append(dst, "\r\n"...)
}

// AppendFieldLines appends a line for each of name's values, none if
// net/http drops the name (httpguts.ValidHeaderFieldName).
func AppendFieldLines(dst []byte, name string, values []string) []byte {
	if !httpguts.ValidHeaderFieldName(name) {
		return dst
	}
	for _, v := range values {
		dst = appendField(dst, name, v)
	}
	return dst
}

// appendField appends one line of the field name with value v. The
// caller leaves out the names net/http drops
// (httpguts.ValidHeaderFieldName).
func appendField(dst []byte, name, v string) []byte {
	dst = append(dst, name...)
	dst = append(dst, ": "...)
	dst = append(dst, fieldValue(v)...)
	return append(dst, "\r\n"...)
}

// fieldValue is v as net/http writes it: CR and LF as spaces, without
// leading or trailing white space.
func fieldValue(v string) string {
	if strings.ContainsAny(v, "\r\n") {
		v = strings.NewReplacer("\r", " ", "\n", " ").Replace(v)
	}
	return strings.Trim(v, " \t")
}

// AppendDate appends the Date line net/http adds to a response without
// one.
func AppendDate(dst []byte, now time.Time) []byte {
	dst = append(dst, "Date: "...)
	dst = now.UTC().AppendFormat(dst, http.TimeFormat)
	return append(dst, "\r\n"...)
}

// Unframed lists the fields net/http takes out of a response with code
// that has no body (1xx, 204 and 304; 304 also loses its Content-Type),
// nil for the others.
func Unframed(code int) []string {
	switch {
	case code == http.StatusNotModified:
		return unframed304
	case code < 200 || code == http.StatusNoContent:
		return unframed
	}
	return nil
}

var (
	unframed    = []string{"Content-Length", "Transfer-Encoding"}
	unframed304 = []string{"Content-Length", "Content-Type", "Transfer-Encoding"}
)

// AppendFraming appends the Content-Length and sniffed Content-Type lines
// net/http adds, after the handler's fields and Date, to a response with
// code, fields hdr and body to a request of method (body is nil for a
// HEAD: net/http drops it).
func AppendFraming(dst []byte, hdr http.Header, code int, method string, body []byte) []byte {
	if Unframed(code) != nil {
		return dst
	}
	if _, has := hdr["Content-Length"]; !has && (method != http.MethodHead || len(body) > 0) {
		dst = append(dst, "Content-Length: "...)
		dst = strconv.AppendInt(dst, int64(len(body)), 10)
		dst = append(dst, "\r\n"...)
	}
	if _, typed := hdr["Content-Type"]; !typed && hdr.Get("Content-Encoding") == "" && len(body) > 0 {
		dst = appendField(dst, "Content-Type", http.DetectContentType(body))
	}
	return dst
}
