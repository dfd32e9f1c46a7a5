//go:build !(go1.27 && !http2legacy)

// A test of lastmile's patch (third_party/x-net.patch): the upper bound
// writeResHeaders.staysWithinBuffer computes is never below what
// writeFrame writes.

package http2

import (
	"bytes"
	"math/rand"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/http2/hpack"
)

type boundWriteContext struct {
	framer *Framer
	enc    *hpack.Encoder
	buf    *bytes.Buffer
}

func (c *boundWriteContext) Framer() *Framer                                { return c.framer }
func (c *boundWriteContext) Flush() error                                   { return nil }
func (c *boundWriteContext) CloseConn() error                               { return nil }
func (c *boundWriteContext) HeaderEncoder() (*hpack.Encoder, *bytes.Buffer) { return c.enc, c.buf }

// boundTestString has a length around HPACK's integer prefix boundaries or
// a random one, with characters Huffman codes long or short, invalid or
// not ASCII.
func boundTestString(r *rand.Rand) string {
	lengths := []int{0, 1, 126, 127, 128, 254, 255, 16382, 16383, 16384}
	n := r.Intn(200)
	if r.Intn(2) == 0 {
		n = lengths[r.Intn(len(lengths))]
	}
	chars := []string{"a", "Z", "0", "~", "\x7f", "é", " ", "\xff", "{", "\t"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(chars[r.Intn(len(chars))])
	}
	return b.String()
}

func TestWriteResHeadersBoundHolds(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	checked := 0
	for range 2000 {
		buf := new(bytes.Buffer)
		enc := hpack.NewEncoder(buf)
		// A table as large as a peer may allow, full of entries, so that
		// indexes take their most bytes; then two pending size updates.
		enc.SetMaxDynamicTableSizeLimit(^uint32(0))
		enc.SetMaxDynamicTableSize(^uint32(0))
		for i := range r.Intn(2) * 20000 {
			enc.WriteField(hpack.HeaderField{Name: "x-" + string(rune('a'+i%26)), Value: strings.Repeat("v", i%40)})
		}
		buf.Reset()
		enc.SetMaxDynamicTableSize(^uint32(0) - 1)
		enc.SetMaxDynamicTableSize(^uint32(0))

		h := http.Header{}
		for range r.Intn(8) {
			k := boundTestString(r)
			switch r.Intn(4) {
			case 0:
				k = "x-a" // in the table
			case 1:
				k = "Transfer-Encoding"
			}
			for range 1 + r.Intn(3) {
				h[k] = append(h[k], boundTestString(r))
			}
		}
		w := &writeResHeaders{streamID: 1, httpResCode: 200 + r.Intn(400), h: h,
			contentType: boundTestString(r), contentLength: "12345", date: "Mon, 02 Jan 2006 15:04:05 GMT"}
		if r.Intn(4) == 0 {
			w.httpResCode = 0
			for k := range h {
				w.trailers = append(w.trailers, k)
			}
		}
		// The smallest buffer the bound says the frame fits in.
		lo, hi := 0, 1<<20
		for lo < hi {
			if m := (lo + hi) / 2; w.staysWithinBuffer(m) {
				hi = m
			} else {
				lo = m + 1
			}
		}
		if lo == 1<<20 {
			continue // more than one frame: never written on the serve goroutine
		}
		out := new(bytes.Buffer)
		if err := w.writeFrame(&boundWriteContext{framer: NewFramer(out, nil), enc: enc, buf: buf}); err != nil {
			t.Fatal(err)
		}
		if out.Len() > lo {
			t.Fatalf("HEADERS of %d bytes, bound %d (%d fields)", out.Len(), lo, len(h))
		}
		checked++
	}
	if checked < 500 {
		t.Fatalf("only %d of 2000 header sets fit one frame: the test checks too few", checked)
	}
}

// A hit's usual fields fit the 4 KiB write buffer: its HEADERS are written
// on the serve goroutine.
func TestWriteResHeadersSmallFitsBuffer(t *testing.T) {
	w := &writeResHeaders{streamID: 1, httpResCode: 200, h: http.Header{
		"Cache-Status":  {"lastmile; hit"},
		"Cache-Control": {"public, max-age=60"},
		"Etag":          {`"abc"`},
		"Age":           {"3"},
	}, contentType: "text/html", contentLength: "2048", date: "Mon, 02 Jan 2006 15:04:05 GMT"}
	if !w.staysWithinBuffer(bufWriterPoolBufferSize) {
		t.Fatal("a small response's HEADERS do not fit the write buffer")
	}
	if w.staysWithinBuffer(40) {
		t.Fatal("HEADERS said to fit 40 bytes")
	}
}
