package clienttcp

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "github.com/lastmile-edge/lastmile/modules/httpcache" // edge_cache

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// hitsEdge runs one edge with two servers in front of one origin, the same
// site on both: "answering" with client_tcp as configured by default,
// "through" with answer_hits off, so net/http parses and writes every
// request. It returns their addresses.
func hitsEdge(t *testing.T) (answering, through string) {
	body2k := strings.Repeat("0123456789abcdef", 128)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "max-age=600")
		switch r.URL.Path {
		case "/plain", "/a b", "/q":
			h.Set("Content-Type", "text/plain")
			h.Set("ETag", `"v1"`)
			_, _ = io.WriteString(w, body2k)
		case "/untyped": // net/http sniffs a Content-Type
			_, _ = io.WriteString(w, "<html><body>hi</body></html>")
		case "/big":
			big := strings.Repeat(body2k, 20)
			h.Set("Content-Type", "application/octet-stream")
			h.Set("Content-Length", fmt.Sprint(len(big)))
			_, _ = io.WriteString(w, big)
		case "/chunked": // stored without Content-Length: net/http would chunk it
			h.Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, body2k)
			w.(http.Flusher).Flush()
			_, _ = io.WriteString(w, body2k)
		case "/gone":
			w.WriteHeader(http.StatusGone)
			_, _ = io.WriteString(w, "gone")
		case "/nostore":
			h.Set("Cache-Control", "no-store")
			_, _ = io.WriteString(w, "fresh each time")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(origin.Close)
	a, b := testcaddy.FreePort(t), testcaddy.FreePort(t)
	site := func(port string) string {
		return `http://127.0.0.1:` + port + ` {
	edge_cache
	reverse_proxy ` + strings.TrimPrefix(origin.URL, "http://") + `
}
`
	}
	testcaddy.Run(t, `{
	admin off
	servers :`+a+` {
		protocols h1
		listener_wrappers {
			client_tcp
		}
	}
	servers :`+b+` {
		protocols h1
		listener_wrappers {
			client_tcp {
				answer_hits off
			}
		}
	}
}
`+site(a)+site(b))
	return "127.0.0.1:" + a, "127.0.0.1:" + b
}

// closing ends every exchange: a request net/http answers and closes
// after, so that all a server sends is read to its end.
const closing = "GET /nostore HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"

// exchange sends raw, then closing, on a new connection and returns all
// the server sends until it closes.
func exchange(t *testing.T, addr, raw string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, raw+closing); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("after %q: %v", got, err)
	}
	return string(got)
}

// varying are the fields whose values differ by the clock.
var varying = regexp.MustCompile(`(?m)^(Date|Age|Server-Timing): .*\r$`)

func normalize(s string) string { return varying.ReplaceAllString(s, "$1: -\r") }

// The same bytes, sent to a server that answers hits below net/http and to
// one that does not, get the same bytes back (less the clock's fields),
// and only the plainly simple hits are answered below net/http: requests
// that smuggle, fold, end lines with LF alone, ask to close, speak
// HTTP/1.0, carry a body or ask for a range go to net/http, as do hits
// net/http would write chunked.
func TestAnsweredHitsMatchNetHTTP(t *testing.T) {
	answering, through := hitsEdge(t)
	get := func(path, fields string) string {
		return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + fields + "\r\n"
	}
	// Warm both: a miss stores, then hits.
	for _, path := range []string{"/plain", "/a%20b", "/q?x=1&y=%2F", "/untyped", "/big", "/chunked", "/gone"} {
		for _, addr := range []string{answering, through} {
			exchange(t, addr, get(path, ""))
		}
	}
	withPort := "GET /plain HTTP/1.1\r\nHost: 127.0.0.1:" + strings.Split(answering, ":")[1] + "\r\n\r\n"
	for _, addr := range []string{answering, through} {
		exchange(t, addr, withPort)
	}
	smuggled := get("/nostore", "")
	for _, c := range []struct {
		name     string
		raw      string
		answered int // below net/http
	}{
		{"hit", get("/plain", ""), 1},
		{"head", "HEAD /plain HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 1},
		{"not modified", get("/plain", "If-None-Match: \"v1\"\r\n"), 1},
		{"escaped path", get("/a%20b", ""), 1},
		{"query", get("/q?x=1&y=%2F", ""), 1},
		{"sniffed type", get("/untyped", ""), 1},
		{"head sniffed type", "HEAD /untyped HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 1},
		{"big body", get("/big", ""), 1},
		{"cached 410", get("/gone", ""), 1},
		{"lower-case names, keep-alive", "GET /plain HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: */*\r\nconnection: Keep-Alive\r\n\r\n", 1},
		{"host with port", withPort, 1},
		// After the first request net/http answers, it answers all.
		{"pipelined hit miss hit", get("/plain", "") + get("/nostore", "") + get("/untyped", ""), 1},
		{"pipelined hits", get("/plain", "") + get("/big", "") + get("/gone", ""), 3},
		{"hit then a partial request", get("/plain", "") + "GET /plain HTTP/1.1\r\nHo", 1},
		{"chunked-stored entry", get("/chunked", ""), 0},
		{"range", get("/plain", "Range: bytes=0-9\r\n"), 0},
		{"pragma", get("/plain", "Pragma: no-cache\r\n"), 0},
		{"miss", get("/nostore", ""), 0},
		{"connection close", get("/plain", "Connection: close\r\n"), 0},
		{"http/1.0", "GET /plain HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", 0},
		{"lf only", "GET /plain HTTP/1.1\nHost: 127.0.0.1\n\n", 0},
		{"obs-fold", get("/plain", "X-A: 1\r\n 2\r\n"), 0},
		{"cl and te", get("/plain", "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n") + "0\r\n\r\n" + smuggled, 0},
		{"duplicate cl", get("/plain", "Content-Length: 0\r\nContent-Length: 40\r\n") + smuggled, 0},
		{"te chunked body", get("/plain", "Transfer-Encoding: chunked\r\n") +
			fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(smuggled), smuggled), 0},
		{"get with a body", get("/plain", "Content-Length: 5\r\n") + "hello", 0},
		{"two hosts", get("/plain", "Host: 127.0.0.1\r\n"), 0},
		{"expect", get("/plain", "Expect: 100-continue\r\n"), 0},
		{"blank line first", "\r\n" + get("/plain", ""), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			answered := countedSince(t, answeredHits)
			got := exchange(t, answering, c.raw)
			if n := answered(); n != float64(c.answered) {
				t.Errorf("%v answered below net/http, want %d", n, c.answered)
			}
			want := exchange(t, through, c.raw)
			if normalize(got) != normalize(want) {
				t.Fatalf("answered:\n%s\nnet/http:\n%s", got, want)
			}
		})
	}
}
