package clienttcp

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// wire is reqs as a client sends them on one connection, written by
// net/http's client side.
func wire(t testing.TB, reqs ...*http.Request) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, r := range reqs {
		if err := r.Write(&b); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func request(t testing.TB, method, target string, body io.Reader, length int64) *http.Request {
	t.Helper()
	r, err := http.NewRequest(method, "http://example.com"+target, body)
	if err != nil {
		t.Fatal(err)
	}
	r.ContentLength = length
	return r
}

// feedSplit feeds p in pieces of size n, as reads of any size return it.
func feedSplit(s *requestScanner, p []byte, n int) (heads int) {
	for len(p) > 0 {
		k := min(n, len(p))
		heads += s.feed(p[:k])
		p = p[k:]
	}
	return heads
}

func TestRequestScannerCountsHeads(t *testing.T) {
	// A body that reads as requests: only the framing tells it apart.
	lookalike := "GET /fake HTTP/1.1\r\nHost: x\r\n\r\n"
	chunked := request(t, "POST", "/chunked", io.MultiReader(strings.NewReader(lookalike), strings.NewReader("more\n\n")), -1)
	chunked.TransferEncoding = []string{"chunked"}
	withTrailer := request(t, "POST", "/trailer", io.MultiReader(strings.NewReader("a"), strings.NewReader("b")), -1)
	withTrailer.Trailer = http.Header{"X-Sum": {"42"}}
	long := request(t, "GET", "/"+strings.Repeat("a", 10*maxKeptLine), nil, 0)
	long.Header.Set("X-Long", strings.Repeat("b", 3*maxKeptLine))
	for _, tc := range []struct {
		name string
		in   []byte
		want int
	}{
		{"one GET", wire(t, request(t, "GET", "/", nil, 0)), 1},
		{"pipelined", wire(t, request(t, "GET", "/a", nil, 0), request(t, "HEAD", "/b", nil, 0), request(t, "DELETE", "/c", nil, 0)), 3},
		{"length body that reads as a request, then a GET",
			wire(t, request(t, "POST", "/", strings.NewReader(lookalike), int64(len(lookalike))), request(t, "GET", "/", nil, 0)), 2},
		{"chunked body that reads as a request, then a GET", wire(t, chunked, request(t, "GET", "/", nil, 0)), 2},
		{"chunked with a trailer, then a GET", wire(t, withTrailer, request(t, "GET", "/", nil, 0)), 2},
		{"lines longer than kept", wire(t, long, long), 2},
		{"bare LF line ends", []byte("GET / HTTP/1.1\nHost: x\n\nGET / HTTP/1.1\nHost: x\n\n"), 2},
		{"empty lines between requests", []byte("GET / HTTP/1.1\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\n\r\n"), 2},
		{"chunk extensions", []byte("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n0\r\n\r\nGET / HTTP/1.1\r\n\r\n"), 2},
		{"nothing after Connection: close", []byte("GET / HTTP/1.1\r\nConnection: close\r\n\r\nGET / HTTP/1.1\r\n\r\n"), 1},
		{"nothing after HTTP/1.0", []byte("GET / HTTP/1.0\r\n\r\nGET / HTTP/1.1\r\n\r\n"), 1},
		{"HTTP/1.0 kept alive", []byte("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\nGET / HTTP/1.1\r\n\r\n"), 2},
		{"a head not ended yet", []byte("GET / HTTP/1.1\r\nHost: x\r\n"), 0},
		{"a body not ended yet", []byte("POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\nGET / HTTP/1.1\r\n\r\n"), 1},
		{"conflicting lengths stop the scan", []byte("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxGET / HTTP/1.1\r\n\r\n"), 0},
		{"a bad length stops the scan", []byte("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\nGET / HTTP/1.1\r\n\r\n"), 0},
		{"an unknown transfer coding stops the scan", []byte("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\nGET / HTTP/1.1\r\n\r\n"), 0},
		{"a bad chunk size stops the scan", []byte("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nGET / HTTP/1.1\r\n\r\n"), 1},
	} {
		for _, size := range []int{1, 2, 7, 64, len(tc.in)} {
			var s requestScanner
			if got := feedSplit(&s, tc.in, size); got != tc.want {
				t.Errorf("%s, in reads of %d bytes: %d heads, want %d", tc.name, size, got, tc.want)
			}
		}
	}
}

// A request that asks to switch protocols is counted; what follows it is
// scanned only if the server's answer did not switch.
func TestRequestScannerFollowsSwitches(t *testing.T) {
	const next = "GET /next HTTP/1.1\r\n\r\n"
	for _, tc := range []struct {
		name, head string
		writes     []string // the server's, in order
		// Heads in all: the switch's, and if it did not switch, the
		// one sent while it was undecided and the one sent after.
		want int
	}{
		{"websocket switched", "GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
			[]string{"HTTP/1.1 101 Switching Protocols\r\n\r\n"}, 1},
		{"websocket refused", "GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
			[]string{"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"}, 3},
		{"h2c upgrade ignored, after Early Hints", "GET / HTTP/1.1\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n",
			[]string{"HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n", "HTTP/1.1 200 OK\r\n\r\n"}, 3},
		{"tunnel established", "CONNECT example.com:443 HTTP/1.1\r\n\r\n", []string{"HTTP/1.1 200 OK\r\n\r\n"}, 1},
		{"tunnel refused", "CONNECT example.com:443 HTTP/1.1\r\n\r\n", []string{"HTTP/1.1 405 Method Not Allowed\r\n\r\n"}, 3},
	} {
		var s requestScanner
		got := s.feed([]byte(tc.head)) + s.feed([]byte(next))
		for _, w := range tc.writes {
			got += s.responded([]byte(w))
		}
		// After a switch, anything may come: none of it is HTTP/1.1.
		got += s.feed([]byte(next))
		if got != tc.want {
			t.Errorf("%s: %d heads, want %d", tc.name, got, tc.want)
		}
	}
}

// What a client holds back while its Upgrade is unanswered is bounded.
func TestRequestScannerBoundsWhatASwitchHolds(t *testing.T) {
	var s requestScanner
	s.feed([]byte("GET / HTTP/1.1\r\nUpgrade: websocket\r\n\r\n"))
	s.feed(bytes.Repeat([]byte("x"), maxHeld+1))
	if s.state != scanStopped || s.held != nil {
		t.Fatalf("state %d holding %d bytes, want the scan stopped", s.state, len(s.held))
	}
}

// Any bytes, in any reads: the count does not depend on how the reads
// split them, and what the scanner keeps stays bounded.
func FuzzRequestScanner(f *testing.F) {
	f.Add(wire(f, request(f, "GET", "/", nil, 0), request(f, "POST", "/", strings.NewReader("abc"), 3)), uint8(3))
	f.Add([]byte("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;x\r\nabc\r\n0\r\nX-T: 1\r\n\r\nGET / HTTP/1.1\r\n\r\n"), uint8(1))
	f.Add([]byte("GET / HTTP/1.1\r\nUpgrade: websocket\r\n\r\nGET / HTTP/1.1\r\n\r\n"), uint8(5))
	f.Fuzz(func(t *testing.T, in []byte, size uint8) {
		var whole, split requestScanner
		want := whole.feed(in)
		got := feedSplit(&split, in, int(size)+1)
		if got != want {
			t.Fatalf("%d heads in reads of %d bytes, %d at once", got, int(size)+1, want)
		}
		if want > bytes.Count(in, []byte("\n"))/2 {
			t.Fatalf("%d heads from %d lines", want, bytes.Count(in, []byte("\n")))
		}
		if len(split.line) > maxKeptLine || len(split.held) > maxHeld {
			t.Fatalf("keeping %d bytes of a line and holding %d", len(split.line), len(split.held))
		}
	})
}
