package clienttcp

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/lastmile-edge/lastmile/modules/httpcache" // edge_cache

	"github.com/lastmile-edge/lastmile/internal/requestmetric"
	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// hugeBody is larger than a loopback connection's buffers (Linux's
// defaults allow up to 4 MiB to send and 6 MiB to receive): a client that
// does not read it stalls its write.
const hugeBody = 40 << 20

// hitsEdge runs one edge with two servers in front of one origin, the same
// site on both: "answering" with client_tcp as configured by default,
// "through" with answer_hits off, so net/http parses and writes every
// request. It returns their addresses, and a reload of the config.
func hitsEdge(t testing.TB) (answering, through string, reload func()) {
	answering, through, reloadWith := hitsEdgeWith(t, "", nil)
	return answering, through, func() { reloadWith("4m", "") }
}

// hitsEdgeWith is hitsEdge with edge_cache's options, and a reload with
// other idle timeout and options; fetches, if not nil, counts the
// origin's requests for /edge.
func hitsEdgeWith(t testing.TB, options string, fetches *atomic.Int64) (answering, through string, reload func(idle, options string)) {
	origin := hitsOrigin(t, fetches)
	a, b := testcaddy.FreePort(t), testcaddy.FreePort(t)
	site := func(port, options string) string {
		return `http://127.0.0.1:` + port + ` {
	edge_cache {
		max_object_bytes 64MiB
		` + options + `
	}
	reverse_proxy ` + origin + `
}
`
	}
	config := func(idle, options string) string {
		return `{
	admin off
	servers :` + a + ` {
		protocols h1
		timeouts {
			idle ` + idle + `
		}
		listener_wrappers {
			client_tcp
		}
	}
	servers :` + b + ` {
		protocols h1
		listener_wrappers {
			client_tcp {
				answer_hits off
			}
		}
	}
}
` + site(a, options) + site(b, options)
	}
	testcaddy.Run(t, config("5m", options))
	return "127.0.0.1:" + a, "127.0.0.1:" + b, func(idle, options string) { testcaddy.Run(t, config(idle, options)) }
}

// hitsOrigin runs the origin of hitsEdge's site and returns its host and
// port; fetches, if not nil, counts its requests for /edge.
func hitsOrigin(t testing.TB, fetches *atomic.Int64) string {
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
		case "/small-chunked": // stored without Content-Length: net/http adds one
			h.Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, "small ")
			w.(http.Flusher).Flush()
			_, _ = io.WriteString(w, "body")
		case "/chunked": // stored without Content-Length: net/http would chunk it
			h.Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, body2k)
			w.(http.Flusher).Flush()
			_, _ = io.WriteString(w, body2k)
		case "/huge":
			h.Set("Content-Length", fmt.Sprint(hugeBody))
			_, _ = w.Write(make([]byte, hugeBody))
		case "/vary-ae": // one entry per Accept-Encoding
			h.Set("Vary", "Accept-Encoding")
			_, _ = io.WriteString(w, "ae="+r.Header.Get("Accept-Encoding"))
		case "/vary-cookie": // one entry per Cookie
			h.Set("Vary", "Cookie")
			_, _ = io.WriteString(w, "cookie="+r.Header.Get("Cookie"))
		case "/private": // for the one client that asked
			h.Set("Cache-Control", "private, max-age=600")
			_, _ = io.WriteString(w, "private to "+r.Header.Get("Authorization"))
		case "/public-auth": // shared though the request carried credentials
			h.Set("Cache-Control", "public, max-age=600")
			_, _ = io.WriteString(w, "public for "+r.Header.Get("Authorization"))
		case "/gone":
			w.WriteHeader(http.StatusGone)
			_, _ = io.WriteString(w, "gone")
		case "/nostore":
			h.Set("Cache-Control", "no-store")
			_, _ = io.WriteString(w, "fresh each time")
		case "/edge": // edge-only, stripped, and a nearer cache's fields
			if fetches != nil {
				fetches.Add(1)
			}
			h.Set("Cache-Control", `max-age=600, no-cache="X-Secret"`)
			h.Set("Surrogate-Key", "shop item-1")
			h.Set("Cdn-Cache-Control", `max-age=900, no-cache="X-Secret"`)
			h.Set("X-Secret", "per-user")
			h.Set("Cache-Status", "origin-cache; fwd=miss")
			h.Set("Server-Timing", "db;dur=3")
			h.Set("Content-Type", "text/html")
			h.Set("ETag", `"e1"`)
			_, _ = io.WriteString(w, "<p>edge</p>")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(origin.Close)
	return strings.TrimPrefix(origin.URL, "http://")
}

// closing ends every exchange: a request net/http answers and closes
// after, so that all a server sends is read to its end.
const closing = "GET /nostore HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"

// tlsEdges are the TLS configs of the clients of the edges that speak TLS
// (hitsEdgeTLS), by address.
var tlsEdges sync.Map

// dialAnswered opens a connection to a server that answers hits below
// net/http (if answers) on which the last hit was answered so: a
// connection's first request is net/http's, and the request after one
// net/http answered may have had its first byte taken by net/http's
// background read, and then is net/http's too, so it sends a miss, then
// hits until one is answered below net/http.
func dialAnswered(t *testing.T, addr string, answers bool) (net.Conn, *bufio.Reader) {
	t.Helper()
	var c net.Conn
	var err error
	if conf, ok := tlsEdges.Load(addr); ok {
		c, err = tls.Dial("tcp", addr, conf.(*tls.Config))
	} else {
		c, err = net.Dial("tcp", addr)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(c)
	roundTrip(t, c, br, "/nostore")
	for tries := 0; answers; tries++ {
		if tries == 100 {
			t.Fatal("no hit answered below net/http in 100 tries")
		}
		answered := countedSince(t, answeredHits)
		roundTrip(t, c, br, "/plain")
		answers = answered() == 0
	}
	return c, br
}

// exchange sends raw and closing on a connection from dialAnswered, and
// returns all the server sent until it closed, and how many requests were
// counted and answered below net/http meanwhile.
func exchange(t *testing.T, addr, raw string, answers bool) (got string, counted, answered float64) {
	t.Helper()
	c, br := dialAnswered(t, addr, answers)
	answeredSince, countedSince := countedSince(t, answeredHits), countedSince(t, requestmetric.HTTP1)
	if _, err := io.WriteString(c, raw+closing); err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(br)
	if err != nil {
		t.Fatalf("after %q: %v", all, err)
	}
	return string(all), countedSince(), answeredSince()
}

// varying are the fields whose values differ by the clock, and
// Cache-Status's ttl.
var (
	varying = regexp.MustCompile(`(?m)^(Date|Age|Server-Timing): .*\r$`)
	ttl     = regexp.MustCompile(`(?m)^(Cache-Status: .*; ttl=)\d+`)
)

func normalize(s string) string {
	return ttl.ReplaceAllString(varying.ReplaceAllString(s, "$1: -\r"), "${1}-")
}

// The same bytes, sent to a server that answers hits below net/http and to
// one that does not, get the same bytes back (less the clock's fields),
// and only the plainly simple hits are answered below net/http: requests
// that smuggle, fold, end lines with LF alone, ask to close, speak
// HTTP/1.0, carry a body or ask for a range go to net/http, as do hits
// net/http would write chunked.
func TestAnsweredHitsMatchNetHTTP(t *testing.T) {
	answering, through, _ := hitsEdge(t)
	get := func(path, fields string) string {
		return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + fields + "\r\n"
	}
	// Warm both, until each stored response is a hit.
	withPort := "GET /plain HTTP/1.1\r\nHost: 127.0.0.1:" + strings.Split(answering, ":")[1] + "\r\n\r\n"
	for _, addr := range []string{answering, through} {
		for _, req := range []string{get("/plain", ""), get("/a%20b", ""), get("/q?x=1&y=%2F", ""), get("/untyped", ""),
			get("/big", ""), get("/small-chunked", ""), get("/chunked", ""), get("/gone", ""), withPort,
			get("/vary-ae", "Accept-Encoding: gzip\r\n")} {
			testcaddy.Eventually(t, 10*time.Second, "a hit: "+req, func() bool {
				got, _, _ := exchange(t, addr, req, false)
				return strings.Contains(got, "Cache-Status: lastmile; hit")
			})
		}
	}
	for _, addr := range []string{answering, through} {
		// Stored or not, as the cache decides.
		exchange(t, addr, get("/private", "Authorization: Basic eDp5\r\n"), false)
		exchange(t, addr, get("/vary-cookie", "Cookie: a=1\r\n"), false)
		exchange(t, addr, get("/public-auth", "Authorization: Basic eDp5\r\n"), false)
	}
	smuggled := get("/nostore", "")
	fields := ""
	for i := range 60 {
		fields += fmt.Sprintf("X-Field-%d: %d\r\n", i, i)
	}
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
		{"small entry stored without length", get("/small-chunked", ""), 1},
		{"head of it", "HEAD /small-chunked HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 1},
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
		// Cache mixing: the entry a request gets is decided as net/http's.
		{"vary stored encoding", get("/vary-ae", "Accept-Encoding: gzip\r\n"), 1},
		{"vary other encoding", get("/vary-ae", "Accept-Encoding: br\r\n"), 1},
		{"vary no encoding", get("/vary-ae", ""), 1},
		{"vary stored cookie", get("/vary-cookie", "Cookie: a=1\r\n"), 0},
		{"vary other cookie", get("/vary-cookie", "Cookie: a=2\r\n"), 0},
		{"vary no cookie", get("/vary-cookie", ""), 1},
		{"authorization on a shared entry", get("/plain", "Authorization: Basic eDp5\r\n"), 0},
		{"authorization on a public entry", get("/public-auth", "Authorization: Basic eDp5\r\n"), 0},
		{"other authorization on a public entry", get("/public-auth", "Authorization: Basic enp6\r\n"), 0},
		{"private entry, same credentials", get("/private", "Authorization: Basic eDp5\r\n"), 0},
		{"private entry, no credentials", get("/private", ""), 0},
		{"cookie on a shared entry", get("/plain", "Cookie: session=1\r\n"), 1},
		{"no-cache request", get("/plain", "Cache-Control: no-cache\r\n"), 0},
		{"max-age=0 request", get("/plain", "Cache-Control: max-age=0\r\n"), 0},
		{"dot segment", get("/x/../plain", ""), 1},
		{"escaped dot segment", get("/x/%2e%2e/plain", ""), 1},
		{"escaped letter", get("/%70lain", ""), 1},
		{"double slash", get("//plain", ""), 1},
		{"trailing slash", get("/plain/", ""), 1},
		{"empty query", get("/plain?", ""), 1},
		{"query reordered", get("/q?y=%2F&x=1", ""), 1},
		{"query escaped otherwise", get("/q?x=1&y=/", ""), 1},
		{"fragment", get("/plain#f", ""), 0},
		{"absolute form", "GET http://127.0.0.1/plain HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 0},
		{"asterisk form", "GET * HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 0},
		{"other host", "GET /plain HTTP/1.1\r\nHost: localhost\r\n\r\n", 0},
		{"host with a dot", "GET /plain HTTP/1.1\r\nHost: 127.0.0.1.\r\n\r\n", 0},
		{"host with another port", "GET /plain HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n", 1},
		{"host with an empty port", "GET /plain HTTP/1.1\r\nHost: 127.0.0.1:\r\n\r\n", 1},
		{"host with userinfo", "GET /plain HTTP/1.1\r\nHost: a@127.0.0.1\r\n\r\n", 0},
		{"empty host", "GET /plain HTTP/1.1\r\nHost: \r\n\r\n", 0},
		{"host differently cased", "GET /plain HTTP/1.1\r\nHOST: 127.0.0.1\r\n\r\n", 1},
		{"no host", "GET /plain HTTP/1.1\r\n\r\n", 0},
		{"nul in a value", get("/plain", "X-A: a\x00b\r\n"), 0},
		{"high byte in a value", get("/plain", "X-A: \xff\r\n"), 0},
		{"tab in a value", get("/plain", "X-A: a\tb\r\n"), 1},
		{"space before colon", get("/plain", "X-A : 1\r\n"), 0},
		{"underscore name", get("/plain", "X_A: 1\r\n"), 0},
		{"duplicate field", get("/plain", "Accept: a\r\nAccept: b\r\n"), 0},
		{"many fields", get("/plain", fields), 1},
		{"long line", get("/plain", "X-Long: "+strings.Repeat("a", 6000)+"\r\n"), 0},
		{"empty body length", get("/plain", "Content-Length: 0\r\n"), 0},
		{"te identity", get("/plain", "Transfer-Encoding: identity\r\n"), 0},
		{"expect without a body", get("/plain", "Expect: 100-continue\r\nContent-Length: 0\r\n"), 0},
		{"upgrade", get("/plain", "Connection: Upgrade\r\nUpgrade: websocket\r\n"), 0},
		{"connection keep-alive, close", get("/plain", "Connection: keep-alive, close\r\n"), 0},
		{"http/1.0 keep-alive then hit", "GET /plain HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n" + get("/plain", ""), 0},
		{"post then hit", "POST /plain HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\n\r\nabc" + get("/plain", ""), 0},
		{"lowercase method", "get /plain HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 0},
		{"http/1.2", "GET /plain HTTP/1.2\r\nHost: 127.0.0.1\r\n\r\n", 0},
		{"options", "OPTIONS /plain HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 0},
	} {
		t.Run(c.name, func(t *testing.T) { compareAnswering(t, answering, through, c.raw, c.answered) })
	}
}

// compareAnswering sends raw, on a connection whose last hit was answered
// below net/http, to answering, and to through (answer_hits off), and fails
// unless both send the same bytes back (less the clock's), count the same
// requests, and answering answered want of them below net/http, through
// none.
func compareAnswering(t *testing.T, answering, through, raw string, want int) {
	t.Helper()
	// Once on each first: the two servers share the store, so what the
	// first stores, the second would hit.
	exchange(t, answering, raw, false)
	exchange(t, through, raw, false)
	got, requests, answered := exchange(t, answering, raw, true)
	if answered != float64(want) {
		t.Errorf("%v answered below net/http, want %d", answered, want)
	}
	sent, throughRequests, throughAnswered := exchange(t, through, raw, false)
	if throughAnswered != 0 {
		t.Errorf("%v answered below net/http with answer_hits off", throughAnswered)
	}
	if requests != throughRequests {
		t.Errorf("%v requests counted, %v without answers below net/http", requests, throughRequests)
	}
	if normalize(got) != normalize(sent) {
		t.Fatalf("answered:\n%s\nnet/http:\n%s", got, sent)
	}
}

// A kept connection whose hits are answered below net/http outlives a
// reload as any other: the connection, waiting in client_tcp's read for its
// next request, moves to the new config's server, which answers it, and
// later hits below net/http again.
func TestAnsweringConnectionMovesToTheNewConfig(t *testing.T) {
	answering, _, reload := hitsEdge(t)
	c, br := dialAnswered(t, answering, true)
	answered := countedSince(t, answeredHits)
	if roundTrip(t, c, br, "/plain"); answered() != 1 {
		t.Fatal("a hit after one answered below net/http was not")
	}
	moved := handedOver(t)
	reload()
	testcaddy.Eventually(t, 10*time.Second, "the connection handed over", func() bool { return handedOver(t)-moved == 1 })
	resp := roundTrip(t, c, br, "/plain") // the new server's first
	for range 100 {
		if resp.StatusCode != http.StatusOK || resp.Close {
			t.Fatalf("after the reload: %s, Connection: close %v", resp.Status, resp.Close)
		}
		if answered() > 1 {
			return
		}
		resp = roundTrip(t, c, br, "/plain")
	}
	t.Fatal("after the reload, no hit answered below net/http in 100")
}

// A hit answered below net/http allocates next to nothing: the request
// head's string and the cache key (measured over the whole process, the
// test's client reading into a fixed buffer).
func TestAnsweredHitAllocations(t *testing.T) {
	answering, _, _ := hitsEdge(t)
	c, br := dialAnswered(t, answering, true)
	req := []byte("GET /plain HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: test\r\nAccept: */*\r\n\r\n")
	size := int(roundTrip(t, c, br, "/plain").ContentLength)
	answered := countedSince(t, answeredHits)
	const hits = 500
	mallocs := func() uint64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.Mallocs
	}
	body := make([]byte, size)
	before := mallocs()
	for range hits {
		if _, err := c.Write(req); err != nil {
			t.Fatal(err)
		}
		// The head, line by line without allocating, then the body.
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				t.Fatal(err)
			}
			if len(line) == 2 {
				break
			}
		}
		if _, err := io.ReadFull(br, body); err != nil {
			t.Fatal(err)
		}
	}
	per := float64(mallocs()-before) / hits
	if n := answered(); n != hits {
		t.Fatalf("%v of %d hits answered below net/http", n, hits)
	}
	t.Logf("%.2f allocations per answered hit (whole process)", per)
	if per > 3 {
		t.Fatalf("%.2f allocations per answered hit, want at most 3", per)
	}
}
