package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/lastmile-edge/lastmile/internal/testcert"
	"github.com/quic-go/qpack"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/quic-go/quicvarint"
)

// The frame-level client against quic-go's HTTP/3 server: bodies in
// several DATA frames counted whole, each URL's own path requested, a head
// larger than the read buffer decoded, and a status other than 200 an
// error.
func TestH3FramesAgainstHTTP3Server(t *testing.T) {
	cert := testcert.Write(t)
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	paths := map[string]int{}
	srv := &http3.Server{
		TLSConfig: http3.ConfigureTLSConfig(&tls.Config{Certificates: []tls.Certificate{cert.KeyPair}}),
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			paths[r.URL.Path]++
			mu.Unlock()
			switch r.URL.Path {
			case "/missing":
				http.NotFound(w, r)
			case "/big-head":
				w.Header().Set("X-Big", strings.Repeat("h", 20<<10))
				_, _ = w.Write([]byte("ok"))
			default:
				for range 5 { // five DATA frames
					_, _ = w.Write(bytes.Repeat([]byte("x"), 1000))
					w.(http.Flusher).Flush()
				}
			}
		}),
	}
	go srv.Serve(pc)
	t.Cleanup(func() { srv.Close() })

	base := "https://localhost:" + strings.TrimPrefix(pc.LocalAddr().String(), "127.0.0.1:")
	urls := []string{base + "/k/0", base + "/k/1", base + "/missing", base + "/big-head"}
	tlsConf := &tls.Config{RootCAs: cert.Pool, ServerName: "localhost"}
	c, err := dialH3Frames(context.Background(), urls, tlsConf, &quic.Config{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.conn.CloseWithError(errorNoError, "") })
	br := bufio.NewReaderSize(nil, 16<<10)
	for range 3 {
		for _, u := range urls[:2] {
			if n, err := c.get(context.Background(), u, br); err != nil || n != 5000 {
				t.Fatalf("%s: %d bytes, %v", u, n, err)
			}
		}
	}
	if n, err := c.get(context.Background(), base+"/big-head", br); err != nil || n != 2 {
		t.Fatalf("big head: %d bytes, %v", n, err)
	}
	if _, err := c.get(context.Background(), base+"/missing", br); err == nil || !strings.Contains(err.Error(), "status 404") {
		t.Fatalf("404 gave %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if paths["/k/0"] != 3 || paths["/k/1"] != 3 {
		t.Fatalf("paths requested: %v", paths)
	}
}

// With a QPACK table offered, the server's repeated response fields come
// from the table: the field sections shrink while every response still
// decodes with :status 200.
func TestH3FramesQPACKTable(t *testing.T) {
	cert := testcert.Write(t)
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http3.Server{
		TLSConfig: http3.ConfigureTLSConfig(&tls.Config{Certificates: []tls.Certificate{cert.KeyPair}}),
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "public, max-age=86400")
			w.Header().Set("X-Served-By", "a-long-and-repeated-value-the-table-takes")
			w.Header().Set("Date", "Tue, 24 Nov 2026 20:00:00 GMT") // not the clock's, which may turn mid-test
			_, _ = w.Write([]byte("{}"))
		}),
	}
	go srv.Serve(pc)
	t.Cleanup(func() { srv.Close() })
	u := "https://localhost:" + strings.TrimPrefix(pc.LocalAddr().String(), "127.0.0.1:") + "/item"
	tlsConf := &tls.Config{RootCAs: cert.Pool, ServerName: "localhost"}
	heads := map[uint64][]int64{} // table size → each response's head bytes
	for _, table := range []uint64{0, 4096} {
		c, err := dialH3Frames(context.Background(), []string{u}, tlsConf, &quic.Config{}, table)
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(nil)
		// The server inserts a field on its second use and refers to it
		// once the client acknowledged the insert, which crosses the
		// network: responses until the section shrinks, bounded.
		for i := 0; i < 200 && (i < 3 || table > 0 && heads[table][i-1] >= heads[0][0]); i++ {
			before := c.headBytes.Load()
			if n, err := c.get(context.Background(), u, br); err != nil || n != 2 {
				t.Fatalf("table %d, response %d: %d bytes, %v", table, i, n, err)
			}
			heads[table] = append(heads[table], c.headBytes.Load()-before)
		}
		c.conn.CloseWithError(errorNoError, "")
	}
	last := heads[4096][len(heads[4096])-1]
	if heads[0][2] != heads[0][0] || last*3 > heads[0][0] {
		t.Fatalf("field section bytes without a table %v, with one %v", heads[0], heads[4096])
	}
}

// FuzzReadResponse: whatever the stream carries, readResponse returns
// (a bounded HEADERS frame, no panic) and counts no more body than the
// stream held.
func FuzzReadResponse(f *testing.F) {
	f.Add(response("200", []byte("hello")))
	f.Add(response("404", nil))
	f.Add(append(response("200", []byte("a")), 0x21, 2, 0, 0)) // an unknown frame type, skipped
	f.Add([]byte{frameData, 3, 'a', 'b', 'c'})
	f.Add([]byte{frameHeaders, 0x80, 0xff, 0xff, 0xff}) // a length beyond the limit
	c := &h3Frames{decoder: qpack.NewDecoder()}
	f.Fuzz(func(t *testing.T, stream []byte) {
		n, _ := c.readResponse(bufio.NewReaderSize(bytes.NewReader(stream), 64), 0)
		if n > int64(len(stream)) {
			t.Fatalf("counted %d body bytes from %d", n, len(stream))
		}
	})
}

// A response is accepted only with :status 200, before any DATA.
func TestReadResponseStatus(t *testing.T) {
	c := &h3Frames{decoder: qpack.NewDecoder()}
	for _, tc := range []struct {
		stream []byte
		body   int64
		ok     bool
	}{
		{response("200", []byte("hello")), 5, true},
		{append(response("200", []byte("a")), 0x21, 2, 0, 0), 1, true},
		{response("404", []byte("no")), 0, false},
		{[]byte{frameData, 3, 'a', 'b', 'c'}, 0, false},
		{append(response("200", nil), response("200", nil)...), 0, false},
		{nil, 0, false},
		{append([]byte{frameSettings, 0}, response("200", nil)...), 0, false}, // a control frame on a request stream
	} {
		n, err := c.readResponse(bufio.NewReader(bytes.NewReader(tc.stream)), 0)
		if (err == nil) != tc.ok || n != tc.body {
			t.Errorf("%x: %d bytes, %v", tc.stream, n, err)
		}
	}
}

// response is a HEADERS frame with status and, with a body, a DATA frame.
func response(status string, body []byte) []byte {
	var block bytes.Buffer
	enc := qpack.NewEncoder(&block)
	_ = enc.WriteField(qpack.HeaderField{Name: ":status", Value: status})
	out := quicvarint.Append([]byte{frameHeaders}, uint64(block.Len()))
	out = append(out, block.Bytes()...)
	if body != nil {
		out = quicvarint.Append(append(out, frameData), uint64(len(body)))
		out = append(out, body...)
	}
	return out
}
