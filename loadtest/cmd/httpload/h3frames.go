package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/quic-go/qpack"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/quicvarint"
)

// h3Frames is an HTTP/3 client at the frame level, what h2load is for
// HTTP/2: a request is a HEADERS frame encoded once per URL, a response is
// read frame by frame, its fields decoded only to find :status, its DATA
// counted and dropped. quic-go's http3.Transport builds an http.Request
// and an http.Response with header maps per request, which cost the
// client more CPU per hit than the edge spends serving it (the client was
// the limit of the peer bench's HTTP/3 runs, docs/BENCHMARKS.md); a load
// generator measures the server only if it is the cheaper side.
type h3Frames struct {
	conn    *quic.Conn
	headers map[string][]byte // URL → its request's HEADERS frame
	decoder *qpack.Decoder
}

// HTTP/3 frame and stream types (RFC 9114 §7.2, §6.2.1).
const (
	frameData          = 0x0
	frameHeaders       = 0x1
	frameSettings      = 0x4
	streamTypeControl  = 0x0
	maxResponseHeaders = 64 << 10
)

// dialH3Frames connects to the host of urls (all on one origin) and sends
// the control stream's SETTINGS, empty: no QPACK table, no extensions.
func dialH3Frames(ctx context.Context, urls []string, tlsConf *tls.Config, conf *quic.Config) (*h3Frames, error) {
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
	for _, u := range urls {
		if c.headers[u], err = requestHeaders(u); err != nil {
			conn.CloseWithError(0, "")
			return nil, err
		}
	}
	control, err := conn.OpenUniStream()
	if err == nil {
		_, err = control.Write([]byte{streamTypeControl, frameSettings, 0})
	}
	if err != nil {
		conn.CloseWithError(0, "")
		return nil, fmt.Errorf("control stream: %w", err)
	}
	return c, nil
}

// requestHeaders is the HEADERS frame of a GET of rawURL.
func requestHeaders(rawURL string) ([]byte, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	var block []byte
	enc := qpack.NewEncoder(writerFunc(func(p []byte) (int, error) { block = append(block, p...); return len(p), nil }))
	for _, f := range []qpack.HeaderField{
		{Name: ":method", Value: "GET"}, {Name: ":scheme", Value: u.Scheme},
		{Name: ":authority", Value: u.Host}, {Name: ":path", Value: u.RequestURI()},
	} {
		if err := enc.WriteField(f); err != nil {
			return nil, err
		}
	}
	frame := quicvarint.Append([]byte{frameHeaders}, uint64(len(block)))
	return append(frame, block...), nil
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// get requests rawURL on a new stream and reads the response through br,
// returning the body's length; a status other than 200 is an error.
func (c *h3Frames) get(ctx context.Context, rawURL string, br *bufio.Reader) (int64, error) {
	str, err := c.conn.OpenStreamSync(ctx)
	if err != nil {
		return 0, err
	}
	if _, err := str.Write(c.headers[rawURL]); err != nil {
		str.CancelRead(0)
		return 0, err
	}
	str.Close()
	str.SetReadDeadline(time.Now().Add(requestTimeout))
	br.Reset(str)
	n, err := c.readResponse(br)
	if err != nil {
		str.CancelRead(0)
	}
	return n, err
}

var (
	errNoHeaders = errors.New("response without HEADERS")
	errNoStatus  = errors.New("response HEADERS without :status")
)

// readResponse reads a response's frames to the stream's end: one HEADERS
// frame with :status 200, then DATA frames (and any unknown frame types,
// which RFC 9114 §9 says to skip).
func (c *h3Frames) readResponse(br *bufio.Reader) (int64, error) {
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
			if status, err = c.readStatus(br, length); err != nil {
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
		default:
			if _, err := br.Discard(int(length)); err != nil {
				return body, err
			}
		}
	}
}

// readStatus reads a HEADERS frame's field section of length bytes and
// decodes it up to its :status.
func (c *h3Frames) readStatus(br *bufio.Reader, length uint64) (string, error) {
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
	next := c.decoder.Decode(block)
	for {
		f, err := next()
		if err == io.EOF {
			return "", errNoStatus
		}
		if err != nil {
			return "", err
		}
		if f.Name == ":status" {
			return f.Value, nil
		}
	}
}
