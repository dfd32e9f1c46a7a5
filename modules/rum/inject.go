package rum

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// inject passes r on and adds the snippet's tag before </head> of an HTML
// response, streaming: only the few bytes that could start "</head>" are
// held back between writes. The origin is asked for an uncompressed body
// (encode, which runs outside this handler, compresses the result); a
// response that comes compressed anyway, or is not HTML, passes untouched.
func (h *Handler) inject(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	// A copy: encode, outside, reads the client's Accept-Encoding later.
	r = r.Clone(r.Context())
	r.Header.Del("Accept-Encoding")
	iw := &injectWriter{ResponseWriter: w, tag: []byte(h.scriptTag())}
	err := next.ServeHTTP(iw, r)
	if ferr := iw.finish(); err == nil {
		err = ferr
	}
	return err
}

var headClose = []byte("</head>")

type injectWriter struct {
	http.ResponseWriter
	tag         []byte
	wroteHeader bool
	active      bool // an HTML body the tag still has to go into
	held        []byte
}

func (iw *injectWriter) WriteHeader(code int) {
	if iw.wroteHeader || code < 200 {
		iw.ResponseWriter.WriteHeader(code)
		return
	}
	iw.wroteHeader = true
	hdr := iw.Header()
	if code == http.StatusOK && strings.HasPrefix(hdr.Get("Content-Type"), "text/html") && hdr.Get("Content-Encoding") == "" {
		iw.active = true
		hdr.Del("Content-Length")
		hdr.Del("Etag") // the body is no longer the origin's
	}
	iw.ResponseWriter.WriteHeader(code)
}

func (iw *injectWriter) Write(p []byte) (int, error) {
	if !iw.wroteHeader {
		iw.WriteHeader(http.StatusOK)
	}
	if !iw.active {
		return iw.ResponseWriter.Write(p)
	}
	n := len(p)
	buf := append(iw.held, p...)
	iw.held = nil
	if i := indexFold(buf, headClose); i >= 0 {
		iw.active = false
		out := make([]byte, 0, len(buf)+len(iw.tag))
		out = append(append(append(out, buf[:i]...), iw.tag...), buf[i:]...)
		_, err := iw.ResponseWriter.Write(out)
		return n, err
	}
	// Hold back a tail that may be the start of "</head>".
	keep := min(len(buf), len(headClose)-1)
	iw.held = append([]byte(nil), buf[len(buf)-keep:]...)
	if _, err := iw.ResponseWriter.Write(buf[:len(buf)-keep]); err != nil {
		return 0, err
	}
	return n, nil
}

// finish writes what was held back; a page without </head> gets no tag.
func (iw *injectWriter) finish() error {
	if len(iw.held) == 0 {
		return nil
	}
	_, err := iw.ResponseWriter.Write(iw.held)
	iw.held = nil
	return err
}

func (iw *injectWriter) Flush() {
	if len(iw.held) > 0 && !iw.active {
		_ = iw.finish()
	}
	_ = http.NewResponseController(iw.ResponseWriter).Flush()
}

func (iw *injectWriter) Unwrap() http.ResponseWriter { return iw.ResponseWriter }

func indexFold(s, sep []byte) int {
	return bytes.Index(bytes.ToLower(s), sep)
}
