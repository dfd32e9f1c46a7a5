package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/quic-go/qpack"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/quicvarint"
)

// h3Frames is an HTTP/3 client at the frame level, what h2load is for
// HTTP/2: a request is a HEADERS frame encoded once per URL, a response is
// read frame by frame, its fields decoded only to find :status (to their
// end with a QPACK table), its DATA counted and dropped. quic-go's http3.Transport builds an http.Request
// and an http.Response with header maps per request, which cost the
// client more CPU per hit than the edge spends serving it (the client was
// the limit of the peer bench's HTTP/3 runs, docs/BENCHMARKS.md); a load
// generator measures the server only if it is the cheaper side.
type h3Frames struct {
	conn    *quic.Conn
	headers map[string][]byte // URL → its request's HEADERS frame
	decoder *qpack.Decoder
	table   bool // the decoder keeps a dynamic table
	// headBytes counts the response field sections' bytes, which a QPACK
	// table shrinks.
	headBytes atomic.Int64
}

// HTTP/3 frame, stream and setting types (RFC 9114 §7.2, §6.2; RFC 9204
// §4.2, §5).
const (
	frameData                 = 0x0
	frameHeaders              = 0x1
	frameSettings             = 0x4
	streamTypeControl         = 0x0
	streamTypeQPACKEncoder    = 0x2
	streamTypeQPACKDecoder    = 0x3
	settingQPACKTableCapacity = 0x1
	errorNoError              = 0x100 // H3_NO_ERROR
	errorRequestCancelled     = 0x10c // H3_REQUEST_CANCELLED
	errorQPACKEncoderStream   = 0x201
	maxResponseHeaders        = 64 << 10
)

// dialH3Frames connects to the host of urls (all on one origin) and sends
// the control stream's SETTINGS: with qpackTable > 0, a QPACK dynamic
// table of that many bytes (Chromium offers 64 KiB) and no blocked
// streams, so that the server's field sections are decoded as a browser's
// would be; nothing else. The server's unidirectional streams are read:
// its QPACK encoder stream into the table, the rest discarded.
func dialH3Frames(ctx context.Context, urls []string, tlsConf *tls.Config, conf *quic.Config, qpackTable uint64) (*h3Frames, error) {
	first, err := url.Parse(urls[0])
	if err != nil {
		return nil, err
	}
	host := first.Host
	if first.Port() == "" {
		host += ":443"
	}
	tlsConf = tlsConf.Clone()
	tlsConf.NextProtos = []string{"h3"}
	conn, err := quic.DialAddrEarly(ctx, host, tlsConf, conf)
	if err != nil {
		return nil, err
	}
	c := &h3Frames{conn: conn, headers: make(map[string][]byte, len(urls)), decoder: qpack.NewDecoder()}
	if err := c.start(urls, qpackTable); err != nil {
		conn.CloseWithError(errorNoError, "")
		return nil, err
	}
	return c, nil
}

// start encodes the requests, opens the control stream (and with a table
// the QPACK decoder stream) and starts reading the server's streams.
func (c *h3Frames) start(urls []string, qpackTable uint64) error {
	for _, u := range urls {
		var err error
		if c.headers[u], err = requestHeaders(u); err != nil {
			return err
		}
	}
	var settings []byte
	if qpackTable > 0 {
		settings = quicvarint.Append(quicvarint.Append(nil, settingQPACKTableCapacity), qpackTable)
		decoderStream, err := c.conn.OpenUniStream()
		if err == nil {
			_, err = decoderStream.Write([]byte{streamTypeQPACKDecoder})
		}
		if err != nil {
			return fmt.Errorf("QPACK decoder stream: %w", err)
		}
		c.decoder, c.table = qpack.NewDynamicDecoder(qpackTable, decoderStream), true
	}
	control, err := c.conn.OpenUniStream()
	if err == nil {
		frame := quicvarint.Append([]byte{streamTypeControl, frameSettings}, uint64(len(settings)))
		_, err = control.Write(append(frame, settings...))
	}
	if err != nil {
		return fmt.Errorf("control stream: %w", err)
	}
	go c.acceptUniStreams()
	return nil
}

// acceptUniStreams reads the server's unidirectional streams until the
// connection ends.
func (c *h3Frames) acceptUniStreams() {
	for {
		str, err := c.conn.AcceptUniStream(context.Background())
		if err != nil {
			return
		}
		go func() {
			br := bufio.NewReader(str)
			typ, err := quicvarint.Read(br)
			if err != nil {
				return
			}
			if typ == streamTypeQPACKEncoder && c.table {
				if err := c.decoder.ReadEncoderStream(br); err != nil && c.conn.Context().Err() == nil {
					c.conn.CloseWithError(errorQPACKEncoderStream, err.Error())
				}
				return
			}
			_, _ = io.Copy(io.Discard, br) // control (SETTINGS, GOAWAY) and others
		}()
	}
}

// requestHeaders is the HEADERS frame of a GET of rawURL.
func requestHeaders(rawURL string) ([]byte, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	var block bytes.Buffer
	enc := qpack.NewEncoder(&block)
	for _, f := range []qpack.HeaderField{
		{Name: ":method", Value: "GET"}, {Name: ":scheme", Value: u.Scheme},
		{Name: ":authority", Value: u.Host}, {Name: ":path", Value: u.RequestURI()},
	} {
		if err := enc.WriteField(f); err != nil {
			return nil, err
		}
	}
	frame := quicvarint.Append([]byte{frameHeaders}, uint64(block.Len()))
	return append(frame, block.Bytes()...), nil
}

// get requests rawURL on a new stream and reads the response through br,
// returning the body's length; a status other than 200 is an error.
func (c *h3Frames) get(ctx context.Context, rawURL string, br *bufio.Reader) (int64, error) {
	str, err := c.conn.OpenStreamSync(ctx)
	if err != nil {
		return 0, err
	}
	if _, err := str.Write(c.headers[rawURL]); err != nil {
		str.CancelRead(errorRequestCancelled)
		return 0, err
	}
	str.Close()
	str.SetReadDeadline(time.Now().Add(requestTimeout))
	br.Reset(str)
	n, err := c.readResponse(br, uint64(str.StreamID()))
	if err != nil {
		str.CancelRead(errorRequestCancelled)
	}
	return n, err
}

// controlFrames are the frame types a request stream must not carry (RFC
// 9114 §7.2: CANCEL_PUSH, SETTINGS, GOAWAY, MAX_PUSH_ID; PUSH_PROMISE, as
// this client allows no push).
var controlFrames = map[uint64]bool{0x3: true, frameSettings: true, 0x5: true, 0x7: true, 0xd: true}

var (
	errNoHeaders = errors.New("response without HEADERS")
	errNoStatus  = errors.New("response HEADERS without :status")
)

// readResponse reads a response's frames to the stream's end: one HEADERS
// frame with :status 200, then DATA frames (and any unknown frame types,
// which RFC 9114 §9 says to skip). The body's length is not checked
// against a Content-Length: without a table the section is decoded only
// up to :status, to keep the client the cheaper side.
func (c *h3Frames) readResponse(br *bufio.Reader, streamID uint64) (int64, error) {
	var body int64
	status := ""
	for {
		typ, err := quicvarint.Read(br)
		if err == io.EOF && status != "" {
			return body, nil
		}
		if err != nil {
			return body, err
		}
		length, err := quicvarint.Read(br)
		if err != nil {
			return body, err
		}
		switch {
		case typ == frameHeaders && status == "":
			if status, err = c.readStatus(br, length, streamID); err != nil {
				return body, err
			}
			if status != "200" {
				return body, fmt.Errorf("status %s", status)
			}
		case typ == frameData && status != "":
			if _, err := br.Discard(int(length)); err != nil {
				return body, err
			}
			body += int64(length)
		case typ == frameData || typ == frameHeaders:
			return body, errNoHeaders // DATA before HEADERS, or trailers: not from a cache hit
		case controlFrames[typ]:
			return body, fmt.Errorf("frame type %#x on a request stream", typ) // H3_FRAME_UNEXPECTED
		default:
			if _, err := br.Discard(int(length)); err != nil {
				return body, err
			}
		}
	}
}

// readStatus reads a HEADERS frame's field section of length bytes and
// decodes it up to its :status; with a dynamic table, to its end, which
// acknowledges the section as RFC 9204 §4.4.1 requires.
func (c *h3Frames) readStatus(br *bufio.Reader, length, streamID uint64) (string, error) {
	if length > maxResponseHeaders {
		return "", fmt.Errorf("response HEADERS of %d bytes", length)
	}
	block, err := br.Peek(int(length))
	if err == bufio.ErrBufferFull {
		block = make([]byte, length)
		_, err = io.ReadFull(br, block)
	} else if err == nil {
		defer br.Discard(int(length)) // after decoding: block is br's buffer
	}
	if err != nil {
		return "", err
	}
	c.headBytes.Add(int64(length))
	next := c.decoder.DecodeStream(streamID, block)
	status := ""
	for {
		f, err := next()
		if err == io.EOF {
			if status == "" {
				return "", errNoStatus
			}
			return status, nil
		}
		if err != nil {
			return "", err
		}
		if f.Name == ":status" && status == "" {
			status = f.Value
			if !c.table {
				return status, nil
			}
		}
	}
}
