package clienttcp

import (
	"bufio"
	"bytes"
	"net/http"
	"net/textproto"
	"reflect"
	"testing"

	"golang.org/x/net/http/httpguts"
)

func newSimpleRequest() *simpleRequest {
	return &simpleRequest{req: new(http.Request), hdr: make(http.Header)}
}

var parseSeeds = []string{
	"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n",
	"GET /k/1?a=b&c=%2F HTTP/1.1\r\nHost: example.com:8080\r\nUser-Agent: wrk\r\naccept-encoding: gzip\r\n\r\n",
	"HEAD /a%20b;c HTTP/1.1\r\nHost: [::1]:443\r\nIf-None-Match: \"v1\"\r\nConnection: keep-alive\r\n\r\nGET / HTTP/1.1\r\n",
	"GET /a? HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET /a|b HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET //x/../y HTTP/1.1\r\nHost: h\r\nX:\t v \t\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n",
	"GET / HTTP/1.1\nHost: h\n\n",
	"GET / HTTP/1.1\r\nHost: h\r\nHost: i\r\n\r\n",
	"GET / HTTP/1.0\r\nHost: h\r\n\r\n",
	"GET http://h/ HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n",
	"GET / HTTP/1.1\r\nHost : h\r\n\r\n",
	"\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: h\r\nX-Dup: 1\r\nx-dup: 2\r\n\r\n",
}

// What parseSimple accepts, net/http reads the same way: the same method,
// target, URL, Host and header fields, the same length, no body, kept
// alive, and valid for its server.
func FuzzParseSimple(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s))
	}
	q := newSimpleRequest()
	f.Fuzz(func(t *testing.T, data []byte) {
		n := q.parseSimple(data)
		if n == 0 {
			return
		}
		src := bytes.NewReader(data)
		br := bufio.NewReader(src)
		want, err := http.ReadRequest(br)
		if err != nil {
			t.Fatalf("accepted %q, net/http: %v", data[:n], err)
		}
		if read := len(data) - src.Len() - br.Buffered(); read != n {
			t.Fatalf("%q: %d bytes, net/http read %d", data, n, read)
		}
		got := q.req
		// ReadRequest drops Host from the fields; its server refuses a
		// request with two.
		_, fields, _ := bytes.Cut(data[:n], []byte("\r\n"))
		mime, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(fields))).ReadMIMEHeader()
		hosts := mime["Host"]
		if err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		switch {
		case got.Method != want.Method, got.RequestURI != want.RequestURI, got.Proto != want.Proto,
			got.ProtoMajor != want.ProtoMajor, got.ProtoMinor != want.ProtoMinor:
			t.Fatalf("%q: %s %s %s, net/http %s %s %s", data, got.Method, got.RequestURI, got.Proto, want.Method, want.RequestURI, want.Proto)
		case !reflect.DeepEqual(*got.URL, *want.URL):
			t.Fatalf("%q: URL %#v, net/http %#v", data, *got.URL, *want.URL)
		case got.Host != want.Host || len(hosts) != 1 || !httpguts.ValidHostHeader(got.Host):
			t.Fatalf("%q: host %q, net/http %q (%q)", data, got.Host, want.Host, hosts)
		case !reflect.DeepEqual(got.Header, want.Header):
			t.Fatalf("%q: header %q, net/http %q", data, got.Header, want.Header)
		case want.ContentLength != 0 || len(want.TransferEncoding) > 0 || want.Close || got.ContentLength != 0 || got.Close:
			t.Fatalf("%q: a body or a close", data)
		}
		for k, vs := range got.Header {
			for _, v := range vs {
				if !httpguts.ValidHeaderFieldName(k) || !httpguts.ValidHeaderFieldValue(v) {
					t.Fatalf("%q: field %q: %q, which net/http's server refuses", data, k, v)
				}
			}
		}
	})
}

// The requests parseSimple leaves to net/http: anything that could frame,
// end or route differently, or that it does not read as every reader would.
func TestParseSimpleRefuses(t *testing.T) {
	q := newSimpleRequest()
	for _, raw := range []string{
		"GET / HTTP/1.1\r\nHost: h\r\n",                   // incomplete
		"POST / HTTP/1.1\r\nHost: h\r\n\r\n",              // method
		"GET / HTTP/1.0\r\nHost: h\r\n\r\n",               // HTTP/1.0
		"GET http://h/ HTTP/1.1\r\nHost: h\r\n\r\n",       // absolute-form
		"GET * HTTP/1.1\r\nHost: h\r\n\r\n",               // asterisk-form
		"GET /a#b HTTP/1.1\r\nHost: h\r\n\r\n",            // fragment
		"GET /\xc3\xa9 HTTP/1.1\r\nHost: h\r\n\r\n",       // not ASCII
		"GET / HTTP/1.1\nHost: h\n\n",                     // LF alone
		"GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n",         // CR alone
		"GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n", // obs-fold
		"GET / HTTP/1.1\r\nHost : h\r\n\r\n",              // space before the colon
		"GET / HTTP/1.1\r\nHost: h\r\nHost: h\r\n\r\n",    // two Hosts
		"GET / HTTP/1.1\r\nX: y\r\n\r\n",                  // no Host
		"GET / HTTP/1.1\r\nHost: h/x\r\n\r\n",             // not a host name
		"GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, Upgrade\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: h\r\nPragma: no-cache\r\n\r\n", // net/http adds Cache-Control
		"GET / HTTP/1.1\r\nHost: h\r\nTrailer: X\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: h\r\nX-Dup: 1\r\nx-dup: 2\r\n\r\n",
		"\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", // a blank line first
		"GET  / HTTP/1.1\r\nHost: h\r\n\r\n",
		"GET / HTTP/1.1 \r\nHost: h\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: h\r\nX\x00: y\r\n\r\n",
	} {
		if n := q.parseSimple([]byte(raw)); n != 0 {
			t.Errorf("accepted %q", raw)
		}
	}
}

// A simple request is parsed without allocating but for its head's one
// string.
func TestParseSimpleAllocations(t *testing.T) {
	q := newSimpleRequest()
	raw := []byte("GET /k/1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: wrk\r\nAccept: */*\r\n\r\n")
	if n := testing.AllocsPerRun(100, func() { q.parseSimple(raw) }); n > 1 {
		t.Fatalf("%v allocations a request, want at most 1", n)
	}
}
