package http3

import (
	"errors"
	"io"
	"iter"
	"slices"
	"sync"

	"github.com/quic-go/qpack"
	"github.com/quic-go/quic-go"
)

// QPACK's dynamic table (lastmile patch; RFC 9204). A server whose client
// offers a table (browsers do) encodes its responses' fields against one
// (qpack.EncoderTable); a client whose AdditionalSettings offer one decodes
// against it. Upstream used the static table only, so a kept connection
// sent every response's fields in full (about 170 bytes per cache hit)
// where HTTP/2's HPACK sends a byte or two per repeated field.

// SETTINGS_QPACK_MAX_TABLE_CAPACITY and SETTINGS_QPACK_BLOCKED_STREAMS.
const (
	settingQPACKMaxTableCapacity = 0x1
	settingQPACKBlockedStreams   = 0x7
)

// serverQPACKTableCapacity is how much of a client's QPACK dynamic table a
// server uses: the fields that repeat across a site's responses (types,
// cache policy, server, Alt-Svc, ...) take one to two kilobytes; more
// would hold values particular to one resource (ETag, Last-Modified),
// at a cost in memory per connection.
const serverQPACKTableCapacity = 4096

const (
	errCodeQPACKEncoderStreamError ErrCode = 0x201
	errCodeQPACKDecoderStreamError ErrCode = 0x202
)

// qpackStream is this endpoint's QPACK encoder or decoder stream, opened
// by its first write.
type qpackStream struct {
	conn       *quic.Conn
	streamType uint64
	mu         sync.Mutex
	str        *quic.SendStream
	typeSent   bool // the stream type went with a write that succeeded
}

// write sends p; with block false, a stream that cannot take p now
// returns quic.ErrWouldBlock.
func (s *qpackStream) write(p []byte, block bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.str == nil {
		str, err := s.conn.OpenUniStream()
		if err != nil {
			return err
		}
		s.str = str
	}
	if !s.typeSent {
		p = append([]byte{byte(s.streamType)}, p...)
	}
	err := s.str.TryWriteAll(p)
	if errors.Is(err, quic.ErrWouldBlock) && block {
		_, err = s.str.Write(p)
	}
	if err == nil {
		s.typeSent = true
	}
	return err
}

// Write makes a qpackStream the io.Writer a qpack.Decoder writes to.
func (s *qpackStream) Write(p []byte) (int, error) {
	if err := s.write(p, true); err != nil {
		return 0, err
	}
	return len(p), nil
}

// qpackEncoder is a server connection's encoder table and stream.
type qpackEncoder struct {
	table  *qpack.EncoderTable
	stream *qpackStream
}

// flush sends what the table inserted; the handler's response does not
// wait for it (fields refer only to acknowledged entries), so a stream
// that would block keeps it for the next response.
func (e *qpackEncoder) flush() {
	_ = e.table.WriteInstructions(func(b []byte) error { return e.stream.write(b, false) })
}

// appendSection appends fields' section, encoded against the table, to
// dst and sends what the table inserted.
func (e *qpackEncoder) appendSection(dst []byte, fields iter.Seq[qpack.HeaderField]) []byte {
	dst = e.table.AppendSection(dst, fields)
	e.flush()
	return dst
}

// encodeAgain encodes a field section made without a table (an
// EncodedResponseWriter's) against the connection's table; one it cannot
// read is sent as it is.
func (e *qpackEncoder) encodeAgain(section []byte) []byte {
	fields, err := decodeStaticSection(section)
	if err != nil {
		return section
	}
	return e.appendSection(make([]byte, 0, len(section)), slices.Values(fields))
}

// decodeStaticSection decodes a field section that refers to no dynamic
// table; on an error it returns the fields decoded before it.
func decodeStaticSection(section []byte) ([]qpack.HeaderField, error) {
	var fields []qpack.HeaderField
	decode := qpack.NewDecoder().Decode(section)
	for {
		f, err := decode()
		if err == io.EOF {
			return fields, nil
		}
		if err != nil {
			return fields, err
		}
		fields = append(fields, f)
	}
}

// startQPACKEncoder sets up the table for a client whose SETTINGS offered
// decoderCapacity bytes; called before the settings are announced.
func (c *rawConn) startQPACKEncoder(decoderCapacity uint64) {
	if c.qpackTableCapacity == 0 || decoderCapacity == 0 {
		return
	}
	e := &qpackEncoder{
		table:  qpack.NewEncoderTable(decoderCapacity, c.qpackTableCapacity),
		stream: &qpackStream{conn: c.conn, streamType: streamTypeQPACKEncoderStream},
	}
	c.qpackEncoder.Store(e)
}

// readQPACKEncoderStream applies the peer's encoder stream to this
// client's dynamic decoder.
func (c *rawConn) readQPACKEncoderStream(str *quic.ReceiveStream) {
	if c.qpackDecoder == nil {
		return // no table offered: the peer has nothing to send
	}
	c.qpackStreamFailed(c.qpackDecoder.ReadEncoderStream(str), errCodeQPACKEncoderStreamError)
}

// readQPACKDecoderStream applies the peer's acknowledgments to this
// server's encoder table.
func (c *rawConn) readQPACKDecoderStream(str *quic.ReceiveStream) {
	select {
	case <-c.receivedSettings:
	case <-c.conn.Context().Done():
		return
	}
	e := c.qpackEncoder.Load()
	if e == nil {
		return // no table: the peer has nothing to acknowledge
	}
	c.qpackStreamFailed(e.table.ReadDecoderStream(str), errCodeQPACKDecoderStreamError)
}

// qpackStreamFailed closes the connection for what ended a QPACK stream:
// its closure or reset (RFC 9204 §4.2), or an invalid instruction.
func (c *rawConn) qpackStreamFailed(err error, code ErrCode) {
	if c.conn.Context().Err() != nil {
		return
	}
	_, reset := errors.AsType[*quic.StreamError](err)
	if reset || err == io.EOF || err == io.ErrUnexpectedEOF {
		c.CloseWithError(quic.ApplicationErrorCode(ErrCodeClosedCriticalStream), "")
		return
	}
	c.CloseWithError(quic.ApplicationErrorCode(code), err.Error())
}
