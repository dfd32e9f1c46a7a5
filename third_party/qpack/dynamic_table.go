package qpack

import (
	"errors"
	"fmt"
	"io"

	"golang.org/x/net/http2/hpack"
)

// entryOverhead is what RFC 9204 §3.2.1 counts per entry beyond its name
// and value.
const entryOverhead = 32

func entrySize(hf HeaderField) uint64 {
	return uint64(len(hf.Name)+len(hf.Value)) + entryOverhead
}

// maxEntries is RFC 9204 §4.5.1.1's MaxEntries for a decoder's
// SETTINGS_QPACK_MAX_TABLE_CAPACITY.
func maxEntries(maxCapacity uint64) uint64 { return maxCapacity / entryOverhead }

// encodeInsertCount encodes a Required Insert Count (RFC 9204 §4.5.1.1).
func encodeInsertCount(ric, maxCapacity uint64) uint64 {
	if ric == 0 {
		return 0
	}
	return ric%(2*maxEntries(maxCapacity)) + 1
}

var errInsertCount = errors.New("qpack: invalid Required Insert Count")

// decodeInsertCount reverses encodeInsertCount given the decoder's total
// number of inserts so far.
func decodeInsertCount(encoded, maxCapacity, totalInserts uint64) (uint64, error) {
	if encoded == 0 {
		return 0, nil
	}
	maxEnt := maxEntries(maxCapacity)
	fullRange := 2 * maxEnt
	if encoded > fullRange {
		return 0, errInsertCount
	}
	maxValue := totalInserts + maxEnt
	maxWrapped := maxValue / fullRange * fullRange
	ric := maxWrapped + encoded - 1
	if ric > maxValue {
		if ric <= fullRange {
			return 0, errInsertCount
		}
		ric -= fullRange
	}
	if ric == 0 {
		return 0, errInsertCount
	}
	return ric, nil
}

// dynamicTable is a decoder's copy of its peer encoder's dynamic table
// (RFC 9204 §3.2): entries are added at the end and evicted from the
// front; absolute index i is entries[i-evicted].
type dynamicTable struct {
	maxCapacity uint64 // this decoder's SETTINGS_QPACK_MAX_TABLE_CAPACITY
	capacity    uint64 // the encoder's Set Dynamic Table Capacity
	size        uint64
	evicted     uint64
	entries     []HeaderField
}

func (t *dynamicTable) insertCount() uint64 { return t.evicted + uint64(len(t.entries)) }

func (t *dynamicTable) setCapacity(c uint64) error {
	if c > t.maxCapacity {
		return fmt.Errorf("qpack: table capacity %d over the maximum %d", c, t.maxCapacity)
	}
	t.capacity = c
	t.evictTo(c)
	return nil
}

func (t *dynamicTable) evictTo(limit uint64) {
	for t.size > limit {
		t.size -= entrySize(t.entries[0])
		t.entries[0] = HeaderField{}
		t.entries = t.entries[1:]
		t.evicted++
	}
}

func (t *dynamicTable) insert(hf HeaderField) error {
	s := entrySize(hf)
	if s > t.capacity {
		return fmt.Errorf("qpack: entry of %d bytes over the table capacity %d", s, t.capacity)
	}
	t.evictTo(t.capacity - s)
	t.entries = append(t.entries, hf)
	t.size += s
	return nil
}

func (t *dynamicTable) at(abs uint64) (HeaderField, bool) {
	if abs < t.evicted || abs >= t.insertCount() {
		return HeaderField{}, false
	}
	return t.entries[abs-t.evicted], true
}

// readStreamVarInt reads a prefixed integer whose first byte, first, was
// read already (RFC 9204 §4.1.1) from an instruction stream.
func readStreamVarInt(first byte, n byte, r io.ByteReader) (uint64, error) {
	i := uint64(first) & (1<<n - 1)
	if i < 1<<n-1 {
		return i, nil
	}
	for m := uint(0); ; m += 7 {
		if m >= 63 {
			return 0, errVarintOverflow
		}
		b, err := r.ReadByte()
		if err != nil {
			return 0, err
		}
		i += uint64(b&0x7f) << m
		if b&0x80 == 0 {
			return i, nil
		}
	}
}

// readStreamString reads a string literal whose first byte, first, was
// read already; its length is bounded by limit, decoded, and before
// anything is allocated by what Huffman coding can make of limit bytes
// (codes of up to 30 bits per byte).
func readStreamString(first byte, n byte, r byteReader, limit uint64) (string, error) {
	huffman := first&(1<<n) != 0
	l, err := readStreamVarInt(first, n, r)
	if err != nil {
		return "", err
	}
	if l > limit && (!huffman || l > limit*30/8+1) {
		return "", fmt.Errorf("qpack: string of %d bytes over the table capacity", l)
	}
	b := make([]byte, l)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", err
	}
	if !huffman {
		return string(b), nil
	}
	s, err := hpack.HuffmanDecodeToString(b)
	if err == nil && uint64(len(s)) > limit {
		return "", fmt.Errorf("qpack: string of %d bytes over the table capacity", len(s))
	}
	return s, err
}

// byteReader is what instruction streams are read through.
type byteReader interface {
	io.Reader
	io.ByteReader
}
