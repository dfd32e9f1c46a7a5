package h1wire

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// response is what the test server's handler answers with.
type response struct {
	code   int
	fields [][2]string
	body   []byte
}

// netHTTP is a net/http server answering every request with the response
// set last, and a kept connection to it.
type netHTTP struct {
	mu   sync.Mutex
	next response
	conn net.Conn
	br   *bufio.Reader
}

func startNetHTTP(tb testing.TB) *netHTTP {
	s := &netHTTP{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		resp := s.next
		s.mu.Unlock()
		for _, f := range resp.fields {
			w.Header()[f[0]] = append(w.Header()[f[0]], f[1])
		}
		w.WriteHeader(resp.code)
		if r.Method != http.MethodHead { // as edge_cache's serveEntry
			_, _ = w.Write(resp.body)
		}
	}))
	tb.Cleanup(srv.Close)
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	s.conn, s.br = c, bufio.NewReader(c)
	return s
}

// exchange sends a request of method on the kept connection and returns
// the response's head, and its body, which it reads by its
// Content-Length.
func (s *netHTTP) exchange(tb testing.TB, method string, resp response) (head, body string) {
	s.mu.Lock()
	s.next = resp
	s.mu.Unlock()
	_ = s.conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(s.conn, method+" / HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		tb.Fatal(err)
	}
	var h bytes.Buffer
	length := 0
	for {
		line, err := s.br.ReadString('\n')
		if err != nil {
			tb.Fatalf("after %q: %v", h.String(), err)
		}
		h.WriteString(line)
		if line == "\r\n" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if method == http.MethodHead {
		length = 0
	}
	b := make([]byte, length)
	if _, err := io.ReadFull(s.br, b); err != nil {
		tb.Fatal(err)
	}
	return h.String(), string(b)
}

var dateLine = regexp.MustCompile(`(?m)^Date: .*\r$`)

// check compares net/http's head for resp with AppendHead's.
func (s *netHTTP) check(tb testing.TB, method string, resp response) {
	tb.Helper()
	wantHead, wantBody := s.exchange(tb, method, resp)
	hdr := make(http.Header)
	for _, f := range resp.fields {
		hdr[f[0]] = append(hdr[f[0]], f[1])
	}
	body := resp.body
	if method == http.MethodHead || Unframed(resp.code) != nil {
		body = nil
	}
	var enc Encoder
	head := string(enc.AppendHead(nil, hdr, resp.code, method, body, time.Now()))
	if dateLine.ReplaceAllString(head, "Date: -\r") != dateLine.ReplaceAllString(wantHead, "Date: -\r") {
		tb.Fatalf("%s %d %q:\nAppendHead:\n%q\nnet/http:\n%q", method, resp.code, resp.fields, head, wantHead)
	}
	if string(body) != wantBody {
		tb.Fatalf("%s %d: body %q, net/http's %q", method, resp.code, body, wantBody)
	}
}

// The head AppendHead encodes is net/http's, for the responses it writes
// with a length: a Content-Length of the handler's, or none and a body
// that fits net/http's buffer before it chunks (2 KiB).
func TestAppendHeadMatchesNetHTTP(t *testing.T) {
	s := startNetHTTP(t)
	html := []byte("<html><body>hi</body></html>")
	for _, resp := range []response{
		{200, [][2]string{{"Content-Type", "text/plain"}, {"Etag", `"v1"`}}, []byte("hello")},
		{200, nil, html},
		{200, [][2]string{{"Content-Encoding", "gzip"}}, []byte("\x1f\x8b\x08")},
		{200, nil, nil},
		{200, [][2]string{{"Content-Length", "5"}}, []byte("12345")},
		{200, [][2]string{{"Date", "Mon, 23 Nov 2026 10:00:00 GMT"}, {"Server", "x"}}, html},
		{200, [][2]string{{"X-Multi", "1"}, {"X-Multi", "2"}, {"x-lower", "v"}, {"Bad Name", "v"}, {"X-Crlf", "a\r\nb"},
			{"X-Pad", " \tv \t"}, {"X-Empty", ""}}, html},
		{204, [][2]string{{"Content-Type", "text/plain"}, {"Content-Length", "0"}}, nil},
		{304, [][2]string{{"Content-Type", "text/plain"}, {"Etag", `"v1"`}}, nil},
		{404, nil, []byte("not found")},
		{410, [][2]string{{"Content-Type", "text/plain"}}, []byte("gone")},
		{200, nil, bytes.Repeat([]byte("x"), 2048)},
	} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			s.check(t, method, resp)
		}
	}
}

// FuzzAppendHead compares AppendHead with net/http for fields of any name
// and value (but those that frame the message, which edge_cache answers
// only when net/http writes them with a length), codes, and bodies that
// fit net/http's buffer.
func FuzzAppendHead(f *testing.F) {
	f.Add(true, uint8(0), "X-A", "1", "Content-Type", "text/html", []byte("<p>"))
	f.Add(false, uint8(3), "x-b", " v\r\n", "Bad:Name", "v", []byte{})
	f.Add(true, uint8(2), "Date", "now", "Content-Encoding", "br", []byte("\x00\x01"))
	s := startNetHTTP(f)
	f.Fuzz(func(t *testing.T, get bool, code uint8, name1, value1, name2, value2 string, body []byte) {
		for _, name := range []string{name1, name2} {
			switch http.CanonicalHeaderKey(name) {
			case "Content-Length", "Transfer-Encoding", "Connection", "Trailer":
				return
			}
			if strings.HasPrefix(name, http.TrailerPrefix) {
				return
			}
		}
		if len(body) > 2048 {
			body = body[:2048]
		}
		method := http.MethodHead
		if get {
			method = http.MethodGet
		}
		codes := []int{200, 203, 204, 301, 304, 404, 410, 501}
		s.check(t, method, response{codes[int(code)%len(codes)], [][2]string{{name1, value1}, {name2, value2}}, body})
	})
}
