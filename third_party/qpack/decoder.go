package qpack

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"golang.org/x/net/http2/hpack"
)

// An invalidIndexError is returned when decoding encounters an invalid index
// (e.g., an index that is out of bounds for the static table).
type invalidIndexError int

func (e invalidIndexError) Error() string {
	return fmt.Sprintf("invalid indexed representation index %d", int(e))
}

var errNoDynamicTable = errors.New("no dynamic table")

// A Decoder decodes QPACK header blocks.
// A Decoder can be reused to decode multiple header blocks on different streams
// on the same connection (e.g., headers then trailers).
// One made by NewDynamicDecoder also keeps the connection's dynamic table.
type Decoder struct {
	mu    sync.Mutex
	table *dynamicTable // nil: the static table only
	// decoderStream takes the decoder's instructions, written outside mu
	// (a stream the peer does not let us write must not stop decoding) in
	// the order writeMu gives them; acked is the insert count the encoder
	// was told of (its Known Received Count).
	decoderStream io.Writer
	writeMu       sync.Mutex
	acked         uint64
}

// DecodeFunc is a function that decodes the next header field from a header block.
// It should be called repeatedly until it returns io.EOF.
// It returns io.EOF when all header fields have been decoded.
// Any error other than io.EOF indicates a decoding error.
type DecodeFunc func() (HeaderField, error)

// NewDecoder returns a new Decoder.
func NewDecoder() *Decoder {
	return &Decoder{}
}

// NewDynamicDecoder returns a Decoder for a connection whose SETTINGS
// offered the peer a dynamic table of maxCapacity bytes
// (SETTINGS_QPACK_MAX_TABLE_CAPACITY) and no blocked streams
// (SETTINGS_QPACK_BLOCKED_STREAMS 0): a field section that refers to an
// entry not yet received is an error. The peer's encoder stream is read
// with ReadEncoderStream; the decoder's instructions (RFC 9204 §4.4) are
// written to decoderStream, which must start with the stream type.
func NewDynamicDecoder(maxCapacity uint64, decoderStream io.Writer) *Decoder {
	return &Decoder{table: &dynamicTable{maxCapacity: maxCapacity}, decoderStream: decoderStream}
}

// noStream marks a field section whose stream is not known: it may not
// refer to the dynamic table, as its acknowledgment needs the stream.
const noStream = ^uint64(0)

// Decode returns a function that decodes header fields from the given header block.
// It does not copy the slice; the caller must ensure it remains valid during decoding.
// The block may not refer to the dynamic table: see DecodeStream.
func (d *Decoder) Decode(p []byte) DecodeFunc { return d.DecodeStream(noStream, p) }

// DecodeStream is Decode for the field section of stream streamID, which
// may refer to the dynamic table; once it was decoded whole, the section
// is acknowledged on the decoder stream.
func (d *Decoder) DecodeStream(streamID uint64, p []byte) DecodeFunc {
	var readPrefix, done bool
	var ric, base uint64

	return func() (HeaderField, error) {
		if !readPrefix {
			var err error
			if ric, base, p, err = d.readPrefix(streamID, p); err != nil {
				return HeaderField{}, err
			}
			readPrefix = true
		}

		if len(p) == 0 {
			if ric > 0 && !done {
				done = true
				if err := d.acknowledgeSection(streamID, ric); err != nil {
					return HeaderField{}, err
				}
			}
			return HeaderField{}, io.EOF
		}

		b := p[0]
		var hf HeaderField
		var rest []byte
		var err error
		switch {
		case (b & 0x80) > 0: // 1xxxxxxx
			hf, rest, err = d.parseIndexedHeaderField(p, ric, base)
		case (b & 0xc0) == 0x40: // 01xxxxxx
			hf, rest, err = d.parseLiteralHeaderField(p, ric, base)
		case (b & 0xe0) == 0x20: // 001xxxxx
			hf, rest, err = d.parseLiteralHeaderFieldWithoutNameReference(p)
		case d.table == nil:
			err = fmt.Errorf("unexpected type byte: %#x", b)
		case (b & 0xf0) == 0x10: // 0001xxxx
			hf, rest, err = d.parsePostBaseIndexedField(p, ric, base)
		default: // 0000xxxx
			hf, rest, err = d.parsePostBaseLiteralField(p, ric, base)
		}
		p = rest
		if err != nil {
			return HeaderField{}, err
		}
		return hf, nil
	}
}

// readPrefix reads a field section's prefix (RFC 9204 §4.5.1): its
// Required Insert Count and Base.
func (d *Decoder) readPrefix(streamID uint64, p []byte) (ric, base uint64, rest []byte, err error) {
	encoded, p, err := readVarInt(8, p)
	if err != nil {
		return 0, 0, nil, err
	}
	if encoded != 0 {
		if d.table == nil {
			return 0, 0, nil, errors.New("expected Required Insert Count to be zero")
		}
		if streamID == noStream {
			return 0, 0, nil, errors.New("qpack: a field section without a stream refers to the dynamic table")
		}
		d.mu.Lock()
		ric, err = decodeInsertCount(encoded, d.table.maxCapacity, d.table.insertCount())
		inserted := d.table.insertCount()
		d.mu.Unlock()
		if err != nil {
			return 0, 0, nil, err
		}
		if ric > inserted {
			// No blocked streams were allowed.
			return 0, 0, nil, fmt.Errorf("qpack: field section needs %d inserts, %d received", ric, inserted)
		}
	}
	if len(p) == 0 {
		return 0, 0, nil, io.ErrUnexpectedEOF
	}
	negative := p[0]&0x80 != 0
	delta, p, err := readVarInt(7, p)
	if err != nil {
		return 0, 0, nil, err
	}
	switch {
	case ric == 0 && delta != 0:
		return 0, 0, nil, errors.New("expected Base to be zero")
	case !negative:
		base = ric + delta
	case delta >= ric:
		return 0, 0, nil, errors.New("qpack: negative Base")
	default:
		base = ric - delta - 1
	}
	return ric, base, p, nil
}

// dynamicAt returns the entry at absolute index abs, which a section
// whose Required Insert Count is ric may refer to.
func (d *Decoder) dynamicAt(abs, ric uint64) (HeaderField, error) {
	if d.table == nil {
		return HeaderField{}, errNoDynamicTable
	}
	if abs >= ric {
		return HeaderField{}, invalidIndexError(abs)
	}
	d.mu.Lock()
	hf, ok := d.table.at(abs)
	d.mu.Unlock()
	if !ok {
		return HeaderField{}, invalidIndexError(abs)
	}
	return hf, nil
}

// relative turns a relative index into an absolute one (RFC 9204 §3.2.5).
func relative(base, index uint64) (uint64, error) {
	if index >= base {
		return 0, invalidIndexError(index)
	}
	return base - 1 - index, nil
}

// postBase turns a post-base index into an absolute one below ric
// (RFC 9204 §3.2.6), without overflowing.
func postBase(base, index, ric uint64) (uint64, error) {
	if base >= ric || index >= ric-base {
		return 0, invalidIndexError(index)
	}
	return base + index, nil
}

func (d *Decoder) parseIndexedHeaderField(buf []byte, ric, base uint64) (_ HeaderField, rest []byte, _ error) {
	static := buf[0]&0x40 != 0
	index, rest, err := readVarInt(6, buf)
	if err != nil {
		return HeaderField{}, buf, err
	}
	if !static {
		if d.table == nil {
			return HeaderField{}, buf, errNoDynamicTable
		}
		abs, err := relative(base, index)
		if err != nil {
			return HeaderField{}, buf, err
		}
		hf, err := d.dynamicAt(abs, ric)
		return hf, rest, err
	}
	hf, ok := d.at(index)
	if !ok {
		return HeaderField{}, buf, invalidIndexError(index)
	}
	return hf, rest, nil
}

func (d *Decoder) parsePostBaseIndexedField(buf []byte, ric, base uint64) (_ HeaderField, rest []byte, _ error) {
	index, rest, err := readVarInt(4, buf)
	if err != nil {
		return HeaderField{}, buf, err
	}
	abs, err := postBase(base, index, ric)
	if err != nil {
		return HeaderField{}, buf, err
	}
	hf, err := d.dynamicAt(abs, ric)
	return hf, rest, err
}

func (d *Decoder) parseLiteralHeaderField(buf []byte, ric, base uint64) (_ HeaderField, rest []byte, _ error) {
	// The N bit matters only to an intermediary that encodes the field
	// again.
	static := buf[0]&0x10 != 0
	index, rest, err := readVarInt(4, buf)
	if err != nil {
		return HeaderField{}, buf, err
	}
	var hf HeaderField
	if static {
		var ok bool
		if hf, ok = d.at(index); !ok {
			return HeaderField{}, buf, invalidIndexError(index)
		}
	} else {
		if d.table == nil {
			return HeaderField{}, buf, errNoDynamicTable
		}
		abs, err := relative(base, index)
		if err != nil {
			return HeaderField{}, buf, err
		}
		if hf, err = d.dynamicAt(abs, ric); err != nil {
			return HeaderField{}, buf, err
		}
	}
	return d.readValue(hf.Name, rest)
}

func (d *Decoder) parsePostBaseLiteralField(buf []byte, ric, base uint64) (_ HeaderField, rest []byte, _ error) {
	index, rest, err := readVarInt(3, buf)
	if err != nil {
		return HeaderField{}, buf, err
	}
	abs, err := postBase(base, index, ric)
	if err != nil {
		return HeaderField{}, buf, err
	}
	hf, err := d.dynamicAt(abs, ric)
	if err != nil {
		return HeaderField{}, buf, err
	}
	return d.readValue(hf.Name, rest)
}

// readValue reads the value string of a field whose name is known.
func (d *Decoder) readValue(name string, buf []byte) (HeaderField, []byte, error) {
	if len(buf) == 0 {
		return HeaderField{}, buf, io.ErrUnexpectedEOF
	}
	val, rest, err := d.readString(buf, 7, buf[0]&0x80 > 0)
	if err != nil {
		return HeaderField{}, rest, err
	}
	return HeaderField{Name: name, Value: val}, rest, nil
}

func (d *Decoder) parseLiteralHeaderFieldWithoutNameReference(buf []byte) (_ HeaderField, rest []byte, _ error) {
	usesHuffmanForName := buf[0]&0x8 > 0
	name, rest, err := d.readString(buf, 3, usesHuffmanForName)
	if err != nil {
		return HeaderField{}, rest, err
	}
	buf = rest
	if len(buf) == 0 {
		return HeaderField{}, rest, io.ErrUnexpectedEOF
	}
	usesHuffmanForVal := buf[0]&0x80 > 0
	val, rest, err := d.readString(buf, 7, usesHuffmanForVal)
	if err != nil {
		return HeaderField{}, rest, err
	}
	return HeaderField{Name: name, Value: val}, rest, nil
}

func (d *Decoder) readString(buf []byte, n uint8, usesHuffman bool) (string, []byte, error) {
	l, buf, err := readVarInt(n, buf)
	if err != nil {
		return "", nil, err
	}
	if uint64(len(buf)) < l {
		return "", nil, io.ErrUnexpectedEOF
	}
	var val string
	if usesHuffman {
		val, err = hpack.HuffmanDecodeToString(buf[:l])
		if err != nil {
			return "", nil, err
		}
	} else {
		val = string(buf[:l])
	}
	buf = buf[l:]
	return val, buf, nil
}

func (d *Decoder) at(i uint64) (hf HeaderField, ok bool) {
	if i >= uint64(len(staticTableEntries)) {
		return
	}
	return staticTableEntries[i], true
}
