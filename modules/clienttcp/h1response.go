package clienttcp

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
)

// responseWriter takes the front's answer to a simple request
// (frontdoor.HTTP1Answerer: complete when the front returns, one body
// write at most) and writes it as net/http's HTTP/1.1 server would write
// the same handler's response to a keep-alive HTTP/1.1 GET or HEAD
// (net/http's chunkWriter.writeHeader): the status line, the handler's
// fields sorted by name, then Date, Content-Length and a sniffed
// Content-Type where net/http adds them. Reused from request to request.
type responseWriter struct {
	hdr    http.Header
	status int
	body   []byte // what the handler wrote, not copied: the front's stored body
	keys   []string
}

func (w *responseWriter) Header() http.Header { return w.hdr }

func (w *responseWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *responseWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.body = p
	return len(p), nil
}

// reset readies w for the next request.
func (w *responseWriter) reset() {
	clear(w.hdr)
	w.status, w.body = 0, nil
}

// appendHead appends the head of the response to a request of method to
// dst, and returns it with the body to send after it.
func (w *responseWriter) appendHead(dst []byte, method string, now time.Time) (head, body []byte) {
	code := w.status
	if code == 0 {
		code = http.StatusOK
	}
	body = w.body
	if method == http.MethodHead {
		body = nil // net/http drops a HEAD's body
	}
	contentLength, contentType := -1, ""
	bodyAllowed := code >= 200 && code != http.StatusNoContent && code != http.StatusNotModified
	if bodyAllowed {
		if _, has := w.hdr["Content-Length"]; !has && (method != http.MethodHead || len(body) > 0) {
			contentLength = len(body)
		}
		if _, typed := w.hdr["Content-Type"]; !typed && w.hdr.Get("Content-Encoding") == "" && len(body) > 0 {
			contentType = http.DetectContentType(body)
		}
	} else {
		delete(w.hdr, "Content-Length")
		delete(w.hdr, "Transfer-Encoding")
		if code == http.StatusNotModified {
			delete(w.hdr, "Content-Type")
		}
		body = nil
	}
	_, dated := w.hdr["Date"]

	dst = append(dst, "HTTP/1.1 "...)
	dst = strconv.AppendInt(dst, int64(code), 10)
	dst = append(dst, ' ')
	dst = append(dst, http.StatusText(code)...)
	dst = append(dst, "\r\n"...)
	w.keys = w.keys[:0]
	for k := range w.hdr {
		w.keys = append(w.keys, k)
	}
	slices.Sort(w.keys)
	for _, k := range w.keys {
		if !httpguts.ValidHeaderFieldName(k) {
			continue // as net/http drops it
		}
		for _, v := range w.hdr[k] {
			dst = append(dst, k...)
			dst = append(dst, ": "...)
			dst = append(dst, fieldValue(v)...)
			dst = append(dst, "\r\n"...)
		}
	}
	if !dated {
		dst = append(dst, "Date: "...)
		dst = now.UTC().AppendFormat(dst, http.TimeFormat)
		dst = append(dst, "\r\n"...)
	}
	if contentLength >= 0 {
		dst = append(dst, "Content-Length: "...)
		dst = strconv.AppendInt(dst, int64(contentLength), 10)
		dst = append(dst, "\r\n"...)
	}
	if contentType != "" {
		dst = append(dst, "Content-Type: "...)
		dst = append(dst, contentType...)
		dst = append(dst, "\r\n"...)
	}
	return append(dst, "\r\n"...), body
}

// fieldValue is v as net/http writes it: CR and LF as spaces, without
// leading or trailing white space.
func fieldValue(v string) string {
	if strings.ContainsAny(v, "\r\n") {
		v = strings.NewReplacer("\r", " ", "\n", " ").Replace(v)
	}
	return strings.Trim(v, " \t")
}
