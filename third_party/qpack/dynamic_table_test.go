package qpack

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// tablePair connects an EncoderTable and a dynamic Decoder through their
// two instruction streams, delivered when the test says.
type tablePair struct {
	enc           *EncoderTable
	dec           *Decoder
	encoderStream bytes.Buffer // encoder → decoder, not yet read
	decoderStream bytes.Buffer // decoder → encoder, not yet read
}

func newTablePair(decoderCapacity, capacity uint64) *tablePair {
	p := &tablePair{enc: NewEncoderTable(decoderCapacity, capacity)}
	p.dec = NewDynamicDecoder(decoderCapacity, &p.decoderStream)
	return p
}

// deliverInserts carries the encoder's instructions to the decoder.
func (p *tablePair) deliverInserts(t *testing.T) {
	t.Helper()
	if err := p.enc.WriteInstructions(func(b []byte) error { p.encoderStream.Write(b); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := p.dec.ReadEncoderStream(&p.encoderStream); err != io.EOF {
		t.Fatalf("encoder stream: %v", err)
	}
}

// deliverAcks carries the decoder's instructions to the encoder.
func (p *tablePair) deliverAcks(t *testing.T) {
	t.Helper()
	if err := p.enc.ReadDecoderStream(&p.decoderStream); err != io.EOF {
		t.Fatalf("decoder stream: %v", err)
	}
}

func (p *tablePair) roundTrip(t *testing.T, streamID uint64, fields []HeaderField) int {
	t.Helper()
	section := p.enc.AppendSection(nil, slices.Values(fields))
	decode := p.dec.DecodeStream(streamID, section)
	var got []HeaderField
	for {
		hf, err := decode()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("decoding %x: %v", section, err)
		}
		got = append(got, hf)
	}
	if !slices.Equal(got, fields) {
		t.Fatalf("decoded %q, want %q", got, fields)
	}
	return len(section)
}

var hitFields = []HeaderField{
	{Name: ":status", Value: "200"},
	{Name: "content-type", Value: "text/css; charset=utf-8"},
	{Name: "cache-control", Value: "public, max-age=60, stale-while-revalidate=10"},
	{Name: "cache-status", Value: "lastmile; hit"},
	{Name: "server", Value: "lastmile"},
	{Name: "via", Value: "3 lastmile"},
	{Name: "alt-svc", Value: `h3=":443"; ma=2592000`},
}

func TestEncoderTableShrinksRepeatedSections(t *testing.T) {
	p := newTablePair(64<<10, 4096)
	static := len(NewEncoderTable(0, 0).AppendSection(nil, slices.Values(hitFields)))
	var sizes []int
	for i := range 4 {
		sizes = append(sizes, p.roundTrip(t, uint64(4*i), hitFields))
		p.deliverInserts(t)
		p.deliverAcks(t)
	}
	// First use: remembered; second: inserted; once acknowledged, indexed.
	if sizes[0] != static || sizes[1] != static {
		t.Errorf("sections before the inserts were acknowledged: %d, %d bytes, want %d (the static encoding)", sizes[0], sizes[1], static)
	}
	if sizes[2] > 2+len(hitFields) {
		t.Errorf("section after the acknowledgment: %d bytes, want at most %d (a byte per field)", sizes[2], 2+len(hitFields))
	}
	t.Logf("section sizes: %v (static only: %d)", sizes, static)
}

// A kept connection's repeated section costs no allocation once its fields
// are in the table: every HTTP/3 cache hit with a table is one.
func TestEncoderTableRepeatedSectionDoesNotAllocate(t *testing.T) {
	p := newTablePair(64<<10, 4096)
	for i := range 3 {
		p.roundTrip(t, uint64(4*i), hitFields)
		p.deliverInserts(t)
		p.deliverAcks(t)
	}
	dst := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() {
		dst = p.enc.AppendSection(dst[:0], slices.Values(hitFields))
	}); n != 0 {
		t.Errorf("%v allocations per section, want 0", n)
	}
}

// A caller may give the table strings over memory it then reuses (the
// edge's Server-Timing value is built in a pooled buffer): an inserted
// field is the table's own copy, and a later value in the same memory is
// not taken for it.
func TestEncoderTableCopiesInsertedFields(t *testing.T) {
	p := newTablePair(64<<10, 4096)
	buf := []byte("cache;desc=hit, edge;dur=0.0")
	reused := unsafe.String(unsafe.SliceData(buf), len(buf))
	for i := range 3 {
		p.roundTrip(t, uint64(4*i), []HeaderField{{Name: "server-timing", Value: reused}})
		p.deliverInserts(t)
		p.deliverAcks(t)
	}
	copy(buf[len(buf)-3:], "0.3")
	// More inserts grow the table's index, which rehashes its keys as they
	// read now: a key over the reused memory would move to dur=0.3's place.
	var more []HeaderField
	for i := range 40 {
		more = append(more, HeaderField{Name: "x-field", Value: strings.Repeat("v", i+1)})
	}
	for i := range 2 {
		p.roundTrip(t, uint64(12+4*i), more)
		p.deliverInserts(t)
		p.deliverAcks(t)
	}
	// roundTrip compares with the value as it reads now, dur=0.3.
	p.roundTrip(t, 20, []HeaderField{{Name: "server-timing", Value: reused}})
	p.roundTrip(t, 24, []HeaderField{{Name: "server-timing", Value: "cache;desc=hit, edge;dur=0.0"}})
}

func TestEncoderTableSensitiveFieldsNeverInserted(t *testing.T) {
	p := newTablePair(64<<10, 4096)
	fields := []HeaderField{{Name: "set-cookie", Value: "session=secret"}, {Name: "authorization", Value: "Bearer x"}}
	for i := range 3 {
		section := p.enc.AppendSection(nil, slices.Values(fields))
		p.roundTrip(t, uint64(4*i), fields)
		p.deliverInserts(t)
		p.deliverAcks(t)
		// set-cookie's name is static (01N1xxxx with N): the N bit marks it.
		if section[2]&0x20 == 0 {
			t.Errorf("set-cookie not marked never-indexed: %x", section)
		}
	}
	if n := p.dec.table.insertCount(); n != 0 {
		t.Errorf("%d sensitive fields were inserted", n)
	}
}

// A value that Huffman coding would lengthen still fits an entry whose
// size is within the capacity.
func TestEncoderTableInsertsValuesHuffmanLengthens(t *testing.T) {
	p := newTablePair(64<<10, 4096)
	fields := []HeaderField{{Name: "x-binary", Value: strings.Repeat("\x00", 3000)}}
	for i := range 3 {
		p.roundTrip(t, uint64(4*i), fields)
		p.deliverInserts(t)
		p.deliverAcks(t)
	}
	if n := p.roundTrip(t, 12, fields); n > 4 {
		t.Errorf("section of %d bytes, want a reference", n)
	}
}

func TestEncoderTableStopsWhenFull(t *testing.T) {
	p := newTablePair(64<<10, 200)
	for i := range 50 {
		fields := []HeaderField{{Name: "x-id", Value: string(rune('a' + i%26))}, {Name: "content-type", Value: "image/png"}}
		p.roundTrip(t, uint64(4*i), fields)
		p.roundTrip(t, uint64(4*i+1), fields)
		p.deliverInserts(t)
		p.deliverAcks(t)
	}
	if p.dec.table.size > 200 || p.dec.table.evicted != 0 {
		t.Errorf("table size %d, %d evicted: want at most 200, none evicted", p.dec.table.size, p.dec.table.evicted)
	}
}

// Random sections, acknowledgments delivered at random moments: every
// section decodes to what was encoded, and references only acknowledged
// entries (the decoder allows no blocked stream).
func TestEncoderTableRandomRoundTrips(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"content-type", "cache-control", "x-request-id", "age", "etag", "set-cookie", "server-timing", "vary", ":status"}
	values := []string{"a", "text/html", "200", "lastmile; hit", "", "public, max-age=3600", "W/\"1\""}
	for round := range 20 {
		p := newTablePair(uint64(32*(1+rng.IntN(200))), uint64(rng.IntN(8192)))
		for i := range 200 {
			fields := make([]HeaderField, rng.IntN(12))
			for j := range fields {
				fields[j] = HeaderField{Name: names[rng.IntN(len(names))], Value: values[rng.IntN(len(values))]}
			}
			p.roundTrip(t, uint64(4*(round*200+i)), fields)
			if rng.IntN(3) == 0 {
				p.deliverInserts(t)
			}
			if rng.IntN(3) == 0 {
				p.deliverAcks(t)
			}
		}
	}
}

func TestInsertCountEncodingWraps(t *testing.T) {
	const maxCapacity = 320 // MaxEntries 10, FullRange 20
	for total := uint64(0); total < 100; total++ {
		// A section may need any count the decoder could reach within
		// MaxEntries of what it has.
		for ric := max(total, 1) - min(total, 10) + 1; ric <= total+10; ric++ {
			if ric == 0 {
				continue
			}
			got, err := decodeInsertCount(encodeInsertCount(ric, maxCapacity), maxCapacity, total)
			if err != nil || got != ric {
				t.Fatalf("total %d, ric %d: decoded %d, %v", total, ric, got, err)
			}
		}
	}
	if _, err := decodeInsertCount(21, maxCapacity, 0); err == nil {
		t.Error("an encoded count beyond FullRange was accepted")
	}
}

func TestDynamicDecoderRejects(t *testing.T) {
	newDecoder := func(t *testing.T, instructions ...byte) *Decoder {
		d := NewDynamicDecoder(1024, io.Discard)
		if err := d.ReadEncoderStream(bytes.NewReader(instructions)); err != io.EOF {
			t.Fatalf("instructions %x: %v", instructions, err)
		}
		return d
	}
	// Set capacity 100, then insert "x-a: b" with a literal name.
	setup := []byte{0x3f, 100 - 31, 0x43, 'x', '-', 'a', 0x01, 'b'}
	decodeAll := func(d *Decoder, section []byte) error {
		f := d.DecodeStream(0, section)
		for {
			if _, err := f(); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
		}
	}
	d := newDecoder(t, setup...)
	if err := decodeAll(d, []byte{0x02, 0x00, 0x80}); err != nil { // RIC 1, Base 1, index 0
		t.Fatalf("a valid reference failed: %v", err)
	}
	for name, section := range map[string][]byte{
		"an entry not yet received":          {0x03, 0x00, 0x80},
		"a relative index beyond the base":   {0x02, 0x00, 0x81},
		"a post-base index beyond the count": {0x02, 0x80, 0x11},
		"a negative base below zero":         {0x02, 0x81, 0x80},
	} {
		if err := decodeAll(d, section); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// Base 2^63 (Required Insert Count 1, Delta Base 2^63-1) plus post-base
	// index 2^63 is 0 in 64 bits.
	wrap := appendVarInt(appendVarInt([]byte{0x02}, 7, 1<<63-1), 4, 1<<63)
	wrap[len(wrap)-10] |= 0x10
	if err := decodeAll(d, wrap); err == nil {
		t.Error("a post-base index that wraps around: accepted")
	}
	if err := decodeAll(d, nil); err == nil {
		t.Error("an empty section was accepted")
	}
	if _, err := d.Decode([]byte{0x02, 0x00, 0x80})(); err == nil {
		t.Error("a section without a stream referred to the table")
	}
	if _, err := NewDecoder().DecodeStream(0, []byte{0x02, 0x00, 0x80})(); err == nil {
		t.Error("a decoder without a table accepted a reference")
	}
	for name, instructions := range map[string][]byte{
		"a capacity over the maximum":            {0x3f, 0xe2, 0x07},
		"an entry over the capacity":             {0x3f, 1, 0x43, 'x', '-', 'a', 0x01, 'b'},
		"a duplicate of nothing":                 {0x3f, 100 - 31, 0x00},
		"a name reference to nothing":            {0x3f, 100 - 31, 0x80, 0x01, 'b'},
		"a static name reference past the table": {0x3f, 100 - 31, 0xff, 0x7f, 0x01, 'b'},
	} {
		d := NewDynamicDecoder(1024, io.Discard)
		if err := d.ReadEncoderStream(bytes.NewReader(instructions)); err == io.EOF || err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestEncoderTableKeepsInstructionsAWriteRefused(t *testing.T) {
	p := newTablePair(64<<10, 4096)
	refused := errors.New("would block")
	for i := range 2 {
		p.roundTrip(t, uint64(4*i), hitFields)
		if err := p.enc.WriteInstructions(func([]byte) error { return refused }); err != refused {
			t.Fatalf("write error: %v", err)
		}
	}
	p.deliverInserts(t)
	p.deliverAcks(t)
	if n := p.dec.table.insertCount(); n != uint64(len(hitFields)-1) {
		t.Errorf("%d entries after the refused writes, want %d", n, len(hitFields)-1)
	}
	if n := p.roundTrip(t, 8, hitFields); n > 2+len(hitFields) {
		t.Errorf("section of %d bytes after the acknowledgment", n)
	}
}

func TestEncoderTableRejectsBadAcknowledgments(t *testing.T) {
	e := NewEncoderTable(1024, 1024)
	if err := e.ReadDecoderStream(bytes.NewReader([]byte{0x00})); errors.Is(err, io.EOF) {
		t.Error("an Insert Count Increment of 0 was accepted")
	}
	if err := e.ReadDecoderStream(bytes.NewReader([]byte{0x01})); errors.Is(err, io.EOF) {
		t.Error("an increment beyond the inserts was accepted")
	}
}

// Whatever arrives on the encoder stream and in a section, the decoder
// returns an error or fields, within its capacity.
func FuzzDynamicDecoder(f *testing.F) {
	f.Add([]byte{0x3f, 100 - 31, 0x43, 'x', '-', 'a', 0x01, 'b', 0x00}, []byte{0x02, 0x00, 0x80})
	f.Add([]byte{0x3f, 0xe1, 0x07, 0xc0, 0x01, 'x'}, []byte{0x02, 0x80, 0x10, 0x00})
	f.Fuzz(func(t *testing.T, instructions, section []byte) {
		d := NewDynamicDecoder(1024, io.Discard)
		_ = d.ReadEncoderStream(bytes.NewReader(instructions))
		if d.table.size > d.table.capacity || d.table.capacity > 1024 {
			t.Fatalf("table of %d bytes, capacity %d", d.table.size, d.table.capacity)
		}
		decode := d.DecodeStream(0, section)
		for range len(section) + 1 {
			if _, err := decode(); err != nil {
				return
			}
		}
		t.Fatal("more fields than bytes")
	})
}
