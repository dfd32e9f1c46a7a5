package qpack

import (
	"bufio"
	"io"
)

// ReadEncoderStream applies the encoder instructions read from r, the
// peer's encoder stream after its type (RFC 9204 §4.3), until r fails or
// an instruction is invalid (then a connection error of type
// QPACK_ENCODER_STREAM_ERROR). Inserts are acknowledged with an Insert
// Count Increment whenever r has nothing more buffered, so that an encoder
// which refers only to acknowledged entries can use them.
func (d *Decoder) ReadEncoderStream(r io.Reader) error {
	if d.table == nil {
		return errNoDynamicTable
	}
	br := bufio.NewReader(r)
	for {
		if err := d.readEncoderInstruction(br); err != nil {
			return err
		}
		if br.Buffered() == 0 {
			if err := d.acknowledgeInserts(); err != nil {
				return err
			}
		}
	}
}

func (d *Decoder) readEncoderInstruction(r *bufio.Reader) error {
	b, err := r.ReadByte()
	if err != nil {
		return err
	}
	d.mu.Lock()
	limit := d.table.capacity
	d.mu.Unlock()
	switch {
	case b&0x80 != 0: // Insert with Name Reference: 1Txxxxxx, value
		index, err := readStreamVarInt(b, 6, r)
		if err != nil {
			return err
		}
		first, err := r.ReadByte()
		if err != nil {
			return err
		}
		value, err := readStreamString(first, 7, r, limit)
		if err != nil {
			return err
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		var hf HeaderField
		if b&0x40 != 0 {
			var ok bool
			if hf, ok = d.at(index); !ok {
				return invalidIndexError(index)
			}
		} else if hf, err = d.insertedAt(index); err != nil {
			return err
		}
		return d.table.insert(HeaderField{Name: hf.Name, Value: value})
	case b&0x40 != 0: // Insert with Literal Name: 01Hxxxxx name, value
		name, err := readStreamString(b, 5, r, limit)
		if err != nil {
			return err
		}
		first, err := r.ReadByte()
		if err != nil {
			return err
		}
		value, err := readStreamString(first, 7, r, limit)
		if err != nil {
			return err
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.table.insert(HeaderField{Name: name, Value: value})
	case b&0x20 != 0: // Set Dynamic Table Capacity: 001xxxxx
		c, err := readStreamVarInt(b, 5, r)
		if err != nil {
			return err
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.table.setCapacity(c)
	default: // Duplicate: 000xxxxx
		index, err := readStreamVarInt(b, 5, r)
		if err != nil {
			return err
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		hf, err := d.insertedAt(index)
		if err != nil {
			return err
		}
		return d.table.insert(hf)
	}
}

// insertedAt returns the entry an encoder instruction refers to by an
// index relative to the insert count; d.mu is held.
func (d *Decoder) insertedAt(index uint64) (HeaderField, error) {
	abs, err := relative(d.table.insertCount(), index)
	if err != nil {
		return HeaderField{}, err
	}
	hf, ok := d.table.at(abs)
	if !ok {
		return HeaderField{}, invalidIndexError(index)
	}
	return hf, nil
}

// acknowledgeSection sends a Section Acknowledgment (RFC 9204 §4.4.1) for
// a section that referred to the dynamic table.
func (d *Decoder) acknowledgeSection(streamID, ric uint64) error {
	b := appendVarInt(nil, 7, streamID)
	b[0] |= 0x80
	d.writeMu.Lock()
	defer d.writeMu.Unlock()
	d.mu.Lock()
	d.acked = max(d.acked, ric)
	d.mu.Unlock()
	_, err := d.decoderStream.Write(b)
	return err
}

// acknowledgeInserts sends an Insert Count Increment (RFC 9204 §4.4.3)
// for the entries received and not yet acknowledged.
func (d *Decoder) acknowledgeInserts() error {
	d.writeMu.Lock()
	defer d.writeMu.Unlock()
	d.mu.Lock()
	n := d.table.insertCount() - d.acked
	d.acked += n
	d.mu.Unlock()
	if n == 0 {
		return nil
	}
	_, err := d.decoderStream.Write(appendVarInt(nil, 6, n))
	return err
}
