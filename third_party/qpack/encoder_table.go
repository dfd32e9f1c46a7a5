package qpack

import (
	"bufio"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"iter"
	"strings"
	"sync"

	"golang.org/x/net/http2/hpack"
)

// An EncoderTable is an encoder's dynamic table for one connection
// (RFC 9204 §2.1). It is deliberately simple, so that it can never block
// or break the peer's decoder:
//   - a field section refers only to entries the decoder acknowledged
//     (the Known Received Count), so no stream is ever blocked;
//   - entries are never evicted: once the table is full, fields are
//     encoded as without it, so no section can refer to an entry that is
//     gone;
//   - a field is inserted on its second use on the connection, so that
//     values that change with every response do not fill the table, and
//     never if its name marks it sensitive (RFC 9204 §7.1).
//
// Its methods may be called concurrently.
type EncoderTable struct {
	mu sync.Mutex
	// decoderCapacity is the decoder's SETTINGS_QPACK_MAX_TABLE_CAPACITY,
	// which the Required Insert Count's encoding depends on.
	decoderCapacity uint64
	capacity, size  uint64
	entries         []HeaderField // by absolute index
	exact           map[HeaderField]uint64
	names           map[string]uint64
	knownReceived   uint64
	seen            map[uint64]struct{} // hashes of fields used once
	seed            maphash.Seed
	instructions    []byte // for the encoder stream, not yet written
	// lines holds a section's field lines while AppendSection encodes
	// them: their prefix, which goes first, depends on their references.
	// Kept for the next section up to maxKeptLines.
	lines []byte
	// sectionBase and sectionRefs are that section's Base and one more
	// than the highest absolute index its lines refer to (its Required
	// Insert Count). They live here, with appendLineFunc, the section's
	// yield function made once: a yield function capturing
	// AppendSection's locals moved them and itself to the heap, 4
	// allocations per section, each HTTP/3 cache hit's head on a kept
	// connection.
	sectionBase, sectionRefs uint64
	appendLineFunc           func(HeaderField) bool

	writeMu sync.Mutex // orders the encoder stream's writes
}

// maxKeptLines bounds the buffer a table keeps for its sections' lines: a
// cache hit's take under 200 bytes; a rare large section's is not kept.
const maxKeptLines = 512

// maxSeen bounds the fields remembered as used once; when full, it is
// cleared.
const maxSeen = 512

// NewEncoderTable returns the table of a connection whose decoder allows
// decoderCapacity bytes (SETTINGS_QPACK_MAX_TABLE_CAPACITY); it uses at
// most capacity of them.
func NewEncoderTable(decoderCapacity, capacity uint64) *EncoderTable {
	t := &EncoderTable{
		decoderCapacity: decoderCapacity,
		capacity:        min(capacity, decoderCapacity),
		exact:           make(map[HeaderField]uint64),
		names:           make(map[string]uint64),
		seen:            make(map[uint64]struct{}),
		seed:            maphash.MakeSeed(),
	}
	t.appendLineFunc = t.appendLine
	// Set Dynamic Table Capacity: 001xxxxx.
	t.instructions = appendVarInt(t.instructions, 5, t.capacity)
	t.instructions[0] |= 0x20
	return t
}

// sensitiveFields are never inserted, so that their values cannot be
// probed through the table (RFC 9204 §7.1.3), and are marked never to be
// inserted by an intermediary.
var sensitiveFields = map[string]bool{
	"authorization": true, "cookie": true, "proxy-authorization": true, "set-cookie": true,
}

// AppendSection appends the field section of fields to dst.
func (t *EncoderTable) AppendSection(dst []byte, fields iter.Seq[HeaderField]) []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	// Base is the Known Received Count: every reference is to an entry
	// below it, a relative index.
	t.sectionBase, t.sectionRefs = t.knownReceived, 0
	t.lines = t.lines[:0]
	fields(t.appendLineFunc)
	body, ric := t.lines, t.sectionRefs
	if cap(body) > maxKeptLines {
		t.lines = nil
	}
	dst = appendVarInt(dst, 8, encodeInsertCount(ric, t.decoderCapacity))
	// Delta Base: Base - Required Insert Count, sign bit 0; without a
	// reference, 0 as in a section without a table.
	var delta uint64
	if ric > 0 {
		delta = t.sectionBase - ric
	}
	dst = appendVarInt(dst, 7, delta)
	return append(dst, body...)
}

// appendLine adds f's field line to the section AppendSection encodes
// (its yield function, as appendLineFunc).
func (t *EncoderTable) appendLine(f HeaderField) bool {
	var ref uint64
	t.lines, ref = t.appendField(t.lines, f, t.sectionBase)
	t.sectionRefs = max(t.sectionRefs, ref)
	return true
}

// appendField encodes f; ref is one more than the highest absolute index
// it refers to (0 for none).
func (t *EncoderTable) appendField(dst []byte, f HeaderField, base uint64) (_ []byte, ref uint64) {
	// The table first: a field is inserted only if the static table does
	// not hold it whole, so a field found here is not found there, and a
	// kept connection's repeated fields skip the static table's lookups.
	if abs, ok := t.exact[f]; ok && abs < base {
		// Indexed Field Line, dynamic: 10xxxxxx.
		offset := len(dst)
		dst = appendVarInt(dst, 6, base-1-abs)
		dst[offset] |= 0x80
		return dst, abs + 1
	}
	static, nameFound := encoderMap[f.Name]
	if nameFound && static.values != nil {
		if i, ok := static.values[f.Value]; ok {
			return appendIndexedStatic(dst, i), 0
		}
	}
	if nameFound && static.values == nil && f.Value == "" {
		return appendIndexedStatic(dst, static.idx), 0
	}
	sensitive := sensitiveFields[f.Name]
	if !sensitive {
		t.maybeInsert(f)
	}
	var never byte // the N bit, which sits 1 bit above a name reference's T bit
	if sensitive {
		never = 0x20
	}
	if nameFound {
		// Literal Field Line with Name Reference, static: 01N1xxxx.
		offset := len(dst)
		dst = appendVarInt(dst, 4, uint64(static.idx))
		dst[offset] |= 0x50 | never
		return appendString(dst, f.Value), 0
	}
	if abs, ok := t.names[f.Name]; ok && abs < base {
		// Literal Field Line with Name Reference, dynamic: 01N0xxxx.
		offset := len(dst)
		dst = appendVarInt(dst, 4, base-1-abs)
		dst[offset] |= 0x40 | never
		return appendString(dst, f.Value), abs + 1
	}
	// Literal Field Line with Literal Name: 001NHxxx.
	offset := len(dst)
	dst = appendVarInt(dst, 3, uint64(hpack.HuffmanEncodeLength(f.Name)))
	dst[offset] |= 0x28 | never>>1
	dst = hpack.AppendHuffmanString(dst, f.Name)
	return appendString(dst, f.Value), 0
}

func appendIndexedStatic(dst []byte, i uint8) []byte {
	// Indexed Field Line, static: 11xxxxxx.
	offset := len(dst)
	dst = appendVarInt(dst, 6, uint64(i))
	dst[offset] |= 0xc0
	return dst
}

// appendString appends a string with a 7-bit length prefix, Huffman-coded
// unless that is longer.
func appendString(dst []byte, s string) []byte {
	offset := len(dst)
	if l := hpack.HuffmanEncodeLength(s); l < uint64(len(s)) {
		dst = appendVarInt(dst, 7, l)
		dst[offset] |= 0x80
		return hpack.AppendHuffmanString(dst, s)
	}
	dst = appendVarInt(dst, 7, uint64(len(s)))
	return append(dst, s...)
}

// maybeInsert inserts f on its second use, if it fits; t.mu is held.
func (t *EncoderTable) maybeInsert(f HeaderField) {
	if _, ok := t.exact[f]; ok {
		return // inserted, not yet acknowledged
	}
	size := entrySize(f)
	if t.size+size > t.capacity {
		return
	}
	var h maphash.Hash
	h.SetSeed(t.seed)
	h.WriteString(f.Name)
	h.WriteByte(0)
	h.WriteString(f.Value)
	key := h.Sum64()
	if _, ok := t.seen[key]; !ok {
		if len(t.seen) >= maxSeen {
			clear(t.seen)
		}
		t.seen[key] = struct{}{}
		return
	}
	delete(t.seen, key)
	// The table outlives the section: its own copies, whatever memory the
	// caller's strings live in.
	f = HeaderField{Name: strings.Clone(f.Name), Value: strings.Clone(f.Value)}
	abs := uint64(len(t.entries))
	t.entries = append(t.entries, f)
	t.size += size
	t.exact[f] = abs
	if _, ok := t.names[f.Name]; !ok {
		t.names[f.Name] = abs
	}
	offset := len(t.instructions)
	if static, ok := encoderMap[f.Name]; ok {
		// Insert with Name Reference, static: 11xxxxxx, value.
		t.instructions = appendVarInt(t.instructions, 6, uint64(static.idx))
		t.instructions[offset] |= 0xc0
	} else {
		// Insert with Literal Name: 011xxxxx name, value.
		t.instructions = appendVarInt(t.instructions, 5, uint64(hpack.HuffmanEncodeLength(f.Name)))
		t.instructions[offset] |= 0x60
		t.instructions = hpack.AppendHuffmanString(t.instructions, f.Name)
	}
	t.instructions = appendString(t.instructions, f.Value)
}

// WriteInstructions hands the encoder instructions not yet written, in
// order, to write, which sends them on the encoder stream (after its
// type). If write fails they stay, ahead of any newer ones, for the next
// call: a stream that would block (flow control) gets them later.
func (t *EncoderTable) WriteInstructions(write func([]byte) error) error {
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	t.mu.Lock()
	b := t.instructions
	t.instructions = nil
	t.mu.Unlock()
	if len(b) == 0 {
		return nil
	}
	if err := write(b); err != nil {
		t.mu.Lock()
		t.instructions = append(b, t.instructions...)
		t.mu.Unlock()
		return err
	}
	return nil
}

// ReadDecoderStream applies the decoder instructions read from r, the
// peer's decoder stream after its type (RFC 9204 §4.4), until r fails or
// an instruction is invalid (then a connection error of type
// QPACK_DECODER_STREAM_ERROR).
func (t *EncoderTable) ReadDecoderStream(r io.Reader) error {
	br := bufio.NewReader(r)
	for {
		b, err := br.ReadByte()
		if err != nil {
			return err
		}
		switch {
		case b&0x80 != 0: // Section Acknowledgment: 1xxxxxxx stream ID
			// Sections refer only to acknowledged entries: nothing to learn.
			if _, err := readStreamVarInt(b, 7, br); err != nil {
				return err
			}
		case b&0x40 != 0: // Stream Cancellation: 01xxxxxx stream ID
			if _, err := readStreamVarInt(b, 6, br); err != nil {
				return err
			}
		default: // Insert Count Increment: 00xxxxxx
			n, err := readStreamVarInt(b, 6, br)
			if err != nil {
				return err
			}
			if err := t.acknowledge(n); err != nil {
				return err
			}
		}
	}
}

var errInsertCountIncrement = errors.New("qpack: Insert Count Increment of 0")

func (t *EncoderTable) acknowledge(n uint64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n == 0 {
		return errInsertCountIncrement
	}
	if t.knownReceived+n > uint64(len(t.entries)) {
		return fmt.Errorf("qpack: Insert Count Increment of %d beyond the %d entries inserted", n, uint64(len(t.entries))-t.knownReceived)
	}
	t.knownReceived += n
	return nil
}
