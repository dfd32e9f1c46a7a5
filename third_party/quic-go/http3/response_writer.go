package http3

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/quic-go/qpack"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3/qlog"

	"golang.org/x/net/http/httpguts"
)

// HTTPStreamer allows an HTTP handler to take over an HTTP/3 stream.
// It is implemented by the [http.ResponseWriter] passed to HTTP/3 handlers.
// When a stream is taken over, it's the caller's responsibility to close the stream.
type HTTPStreamer interface {
	HTTPStream() *Stream
}

const maxSmallResponseSize = 4096

type responseWriter struct {
	str *Stream

	conn     *rawConn
	header   http.Header
	trailers map[string]struct{}
	buf      []byte
	status   int // status code passed to WriteHeader

	// for responses smaller than maxSmallResponseSize, we buffer calls to Write,
	// and automatically add the Content-Length header.
	// lastmile patch: smallResponse holds responseHeadroom bytes kept free
	// for the response's head, then the buffered body (smallBody).
	smallResponse []byte

	contentLen     int64 // if handler set valid Content-Length header
	numWritten     int64 // bytes written
	headerComplete bool  // set once WriteHeader is called with a status code >= 200
	headerWritten  bool  // set once the response header has been serialized to the stream
	isHead         bool
	trailerWritten bool // set once the response trailers has been serialized to the stream

	hijacked bool // set on HTTPStream is called

	logger *slog.Logger
}

var (
	_ http.ResponseWriter = &responseWriter{}
	_ http.Flusher        = &responseWriter{}
	_ Settingser          = &responseWriter{}
	_ HTTPStreamer        = &responseWriter{}
	// make sure that we implement (some of the) methods used by the http.ResponseController
	_ interface {
		SetReadDeadline(time.Time) error
		SetWriteDeadline(time.Time) error
		Flush()
		FlushError() error
	} = &responseWriter{}
)

func newResponseWriter(str *Stream, conn *rawConn, isHead bool, logger *slog.Logger) *responseWriter {
	return &responseWriter{
		str:    str,
		conn:   conn,
		header: http.Header{},
		// lastmile patch: buf is made by the first DATA frame header
		// written on its own (doWrite); a response sent whole (finish,
		// WriteEncodedResponse) needs none.
		isHead: isHead,
		logger: logger,
	}
}

func (w *responseWriter) Header() http.Header {
	return w.header
}

func (w *responseWriter) WriteHeader(status int) {
	if w.headerComplete {
		return
	}

	// http status must be 3 digits
	if status < 100 || status > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", status))
	}
	w.status = status

	// immediately write 1xx headers
	if status < 200 {
		w.writeHeader(status)
		return
	}

	// We're done with headers once we write a status >= 200.
	w.headerComplete = true
	// Add Date header.
	// This is what the standard library does.
	// Can be disabled by setting the Date header to nil.
	if _, ok := w.header["Date"]; !ok {
		w.header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	}
	// Content-Length checking
	// use ParseUint instead of ParseInt, as negative values are invalid
	if clen := w.header.Get("Content-Length"); clen != "" {
		if cl, err := strconv.ParseUint(clen, 10, 63); err == nil {
			w.contentLen = int64(cl)
		} else {
			// emit a warning for malformed Content-Length and remove it
			logger := w.logger
			if logger == nil {
				logger = slog.Default()
			}
			logger.Error("Malformed Content-Length", "value", clen)
			w.header.Del("Content-Length")
		}
	}
}

func (w *responseWriter) sniffContentType(p []byte) {
	// If no content type, apply sniffing algorithm to body.
	// We can't use `w.header.Get` here since if the Content-Type was set to nil, we shouldn't do sniffing.
	_, haveType := w.header["Content-Type"]

	// If the Content-Encoding was set and is non-blank, we shouldn't sniff the body.
	hasCE := w.header.Get("Content-Encoding") != ""
	if !hasCE && !haveType && len(p) > 0 {
		w.header.Set("Content-Type", http.DetectContentType(p))
	}
}

func (w *responseWriter) Write(p []byte) (int, error) {
	bodyAllowed := bodyAllowedForStatus(w.status)
	if !w.headerComplete {
		w.sniffContentType(p)
		w.WriteHeader(http.StatusOK)
		bodyAllowed = true
	}
	if !bodyAllowed {
		return 0, http.ErrBodyNotAllowed
	}

	w.numWritten += int64(len(p))
	if w.contentLen != 0 && w.numWritten > w.contentLen {
		return 0, http.ErrContentLength
	}

	if w.isHead {
		return len(p), nil
	}

	if !w.headerWritten {
		// Buffer small responses.
		// This allows us to automatically set the Content-Length field.
		if len(w.smallBody())+len(p) < maxSmallResponseSize {
			if w.smallResponse == nil {
				w.smallResponse = make([]byte, responseHeadroom, responseHeadroom+len(p))
			}
			w.smallResponse = append(w.smallResponse, p...)
			return len(p), nil
		}
	}
	return w.doWrite(p)
}

func (w *responseWriter) doWrite(p []byte) (int, error) {
	if !w.headerWritten {
		w.sniffContentType(w.smallBody())
		if err := w.writeHeader(w.status); err != nil {
			return 0, err
		}
		w.headerWritten = true
	}

	l := uint64(len(w.smallBody()) + len(p))
	if l == 0 {
		return 0, nil
	}
	df := &dataFrame{Length: l}
	w.buf = w.buf[:0]
	w.buf = df.Append(w.buf)
	if w.str.qlogger != nil {
		w.str.qlogger.RecordEvent(qlog.FrameCreated{
			StreamID: w.str.StreamID(),
			Raw:      qlog.RawInfo{Length: len(w.buf) + int(l), PayloadLength: int(l)},
			Frame:    qlog.Frame{Frame: qlog.DataFrame{}},
		})
	}
	if _, err := w.str.writeUnframed(w.buf); err != nil {
		return 0, err
	}
	if body := w.smallBody(); len(body) > 0 {
		if _, err := w.str.writeUnframed(body); err != nil {
			return 0, err
		}
		w.smallResponse = nil
	}
	var n int
	if len(p) > 0 {
		var err error
		n, err = w.str.writeUnframed(p)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// finish writes what the handler left buffered when it returned (lastmile
// patch). A response that is still all buffered (headers and a body under
// maxSmallResponseSize) goes to the stream as one write, queued at once if
// flow control allows it: written as a HEADERS frame, then a DATA frame
// header, then the body, it went out as a packet with the HEADERS frame
// alone (the packer takes one STREAM frame per stream and packet), and the
// body's write waited until the send loop had packed it, so the send loop
// ran, and sent, once per response. Queued whole, the handler's goroutine
// finishes without waiting and the send loop packs the responses of many
// streams into full packets and one GSO batch.
func (w *responseWriter) finish() error {
	if !w.headerComplete {
		w.WriteHeader(http.StatusOK)
	}
	if w.headerWritten {
		_, err := w.doWrite(nil)
		return err
	}
	body := w.smallBody()
	w.sniffContentType(body)
	head, err := w.encodeHeader(w.status, frameHeaderLen)
	if err != nil {
		return err
	}
	w.headerWritten = true
	buf := head
	if l := len(body); l > 0 {
		hdrStart := len(head)
		head = (&dataFrame{Length: uint64(l)}).Append(head)
		if w.str.qlogger != nil {
			w.str.qlogger.RecordEvent(qlog.FrameCreated{
				StreamID: w.str.StreamID(),
				Raw:      qlog.RawInfo{Length: len(head) - hdrStart + l, PayloadLength: l},
				Frame:    qlog.Frame{Frame: qlog.DataFrame{}},
			})
		}
		if len(head) <= responseHeadroom {
			// The head goes into the room kept for it before the body.
			start := responseHeadroom - len(head)
			copy(w.smallResponse[start:], head)
			buf = w.smallResponse[start:]
		} else {
			buf = append(head, body...)
		}
		w.smallResponse = nil
	}
	return w.writeOwned(buf)
}

// writeOwned hands buf, which the stream then owns, to the stream: queued
// at once if flow control allows all of it, else written as any write.
func (w *responseWriter) writeOwned(buf []byte) error {
	if err := tryWriteAllOwned(w.str.datagramStream, buf); err == nil {
		return nil
	} else if !errors.Is(err, quic.ErrWouldBlock) {
		return maybeReplaceError(err)
	}
	_, err := w.str.writeUnframed(buf)
	return err
}

// EncodedResponseWriter is implemented by the [http.ResponseWriter] passed
// to HTTP/3 handlers (lastmile patch): a handler that keeps a response's
// header fields encoded (a cache) writes the whole response at once,
// without a header map, its lower-casing and its QPACK encoding per
// response.
type EncodedResponseWriter interface {
	// WriteEncodedResponse writes a complete response: fieldSection is
	// its QPACK-encoded field section (the prefix, then :status, which
	// must be status, then the fields), encoded without the dynamic
	// table (this server's QPACK decoder state is never referenced), and
	// body its content (not sent for a HEAD request). The header map is
	// not looked at; no Date, Content-Length or Content-Type is added. It
	// must be the handler's first write, and its last.
	WriteEncodedResponse(status int, fieldSection, body []byte) error
}

// FieldsResponseWriter is implemented by the [http.ResponseWriter] passed
// to HTTP/3 handlers beside EncodedResponseWriter (lastmile patch). On a
// connection whose client offered a QPACK dynamic table (browsers do),
// responses are encoded against that table, and WriteEncodedResponse
// decodes its section to encode it again; a handler that holds the fields
// as a list gives them as such.
type FieldsResponseWriter interface {
	// QPACKTable reports whether responses on this connection are encoded
	// against a dynamic table: whether WriteFieldsResponse saves work.
	QPACKTable() bool
	// WriteFieldsResponse is WriteEncodedResponse with the fields as a
	// list (:status first, which must be status), encoded here.
	WriteFieldsResponse(status int, fields []qpack.HeaderField, body []byte) error
}

var (
	_ EncodedResponseWriter = &responseWriter{}
	_ FieldsResponseWriter  = &responseWriter{}
)

// WriteEncodedResponse is EncodedResponseWriter's. A response under
// maxSmallResponseSize goes to the stream as one owned buffer, as finish
// sends a buffered one; a larger body is written after its head.
func (w *responseWriter) WriteEncodedResponse(status int, fieldSection, body []byte) error {
	body, err := w.beginWholeResponse("WriteEncodedResponse", status, body)
	if err != nil {
		return err
	}
	var qlogFields []qlog.HeaderField
	if w.str.qlogger != nil {
		fields, _ := decodeStaticSection(fieldSection) // what decodes, as far as it does
		qlogFields = toQlogFields(slices.Values(fields))
	}
	if e := w.qpackEncoder(); e != nil {
		fieldSection = e.encodeAgain(fieldSection)
	}
	return w.writeWholeResponse(fieldSection, qlogFields, body)
}

// QPACKTable is FieldsResponseWriter's.
func (w *responseWriter) QPACKTable() bool { return w.qpackEncoder() != nil }

// WriteFieldsResponse is FieldsResponseWriter's.
func (w *responseWriter) WriteFieldsResponse(status int, fields []qpack.HeaderField, body []byte) error {
	if len(fields) == 0 || fields[0].Name != ":status" || fields[0].Value != strconv.Itoa(status) {
		return fmt.Errorf("http3: WriteFieldsResponse without :status %d first", status)
	}
	body, err := w.beginWholeResponse("WriteFieldsResponse", status, body)
	if err != nil {
		return err
	}
	section := headerBlockPool.Get().(*bytes.Buffer)
	defer putHeaderBlock(section)
	section.Reset()
	if err := w.encodeFields(section, slices.Values(fields)); err != nil {
		return err
	}
	var qlogFields []qlog.HeaderField
	if w.str.qlogger != nil {
		qlogFields = toQlogFields(slices.Values(fields))
	}
	return w.writeWholeResponse(section.Bytes(), qlogFields, body) // copied there
}

// beginWholeResponse checks that a whole response written by method may
// begin with status and marks its head written; it returns the body to
// send (none for a HEAD request or a status without content).
func (w *responseWriter) beginWholeResponse(method string, status int, body []byte) ([]byte, error) {
	if w.headerComplete || w.numWritten > 0 {
		return nil, fmt.Errorf("http3: %s after the response was begun", method)
	}
	if status < 200 || status > 999 {
		return nil, fmt.Errorf("http3: %s with status %d", method, status)
	}
	w.status = status
	w.headerComplete, w.headerWritten = true, true
	if w.isHead || !bodyAllowedForStatus(status) {
		body = nil
	}
	w.numWritten = int64(len(body))
	return body, nil
}

// writeWholeResponse sends a response's HEADERS frame with fieldSection,
// then body; qlogFields are the fields qlog records (with qlog on).
func (w *responseWriter) writeWholeResponse(fieldSection []byte, qlogFields []qlog.HeaderField, body []byte) error {
	frame := (&headersFrame{Length: uint64(len(fieldSection))}).Append(make([]byte, 0, 2*frameHeaderLen+len(fieldSection)+min(len(body), maxSmallResponseSize)))
	if w.str.qlogger != nil {
		w.qlogWholeResponse(len(frame)+len(fieldSection), len(fieldSection), qlogFields, len(body))
	}
	buf := append(frame, fieldSection...)
	if len(body) > 0 {
		buf = (&dataFrame{Length: uint64(len(body))}).Append(buf)
	}
	if len(body) >= maxSmallResponseSize {
		if _, err := w.str.writeUnframed(buf); err != nil {
			return err
		}
		_, err := w.str.writeUnframed(body)
		return err
	}
	return w.writeOwned(append(buf, body...))
}

// qlogWholeResponse records the frames of a response written whole.
func (w *responseWriter) qlogWholeResponse(headersLen, sectionLen int, fields []qlog.HeaderField, bodyLen int) {
	qlogCreatedHeadersFrame(w.str.qlogger, w.str.StreamID(), headersLen, sectionLen, fields)
	if bodyLen > 0 {
		w.str.qlogger.RecordEvent(qlog.FrameCreated{
			StreamID: w.str.StreamID(),
			Raw:      qlog.RawInfo{Length: len((&dataFrame{Length: uint64(bodyLen)}).Append(nil)) + bodyLen, PayloadLength: bodyLen},
			Frame:    qlog.Frame{Frame: qlog.DataFrame{}},
		})
	}
}

// tryWriteAllOwned hands buf to a stream that can keep it (lastmile patch:
// the response is not copied once more into a frame of its own); streams
// that cannot (tests' mocks) get TryWriteAll.
func tryWriteAllOwned(str datagramStream, buf []byte) error {
	if o, ok := str.(interface{ TryWriteAllOwned([]byte) error }); ok {
		return o.TryWriteAllOwned(buf)
	}
	return str.TryWriteAll(buf)
}

// responseHeadroom is the room kept before a buffered small body for the
// response's HEADERS frame and the DATA frame's header (lastmile patch):
// finish writes them there, and the response goes to the stream without
// being copied into a buffer of its own. The head of lastmile's cache hit
// is 141-154 bytes (2 KB body: 2,304 bytes, one of Go's size classes); a
// larger head is copied as before.
const responseHeadroom = 256

// encodeFields appends the field section of fields to buf: against the
// connection's QPACK dynamic table if it has one, else the static table.
func (w *responseWriter) encodeFields(buf *bytes.Buffer, fields iter.Seq[qpack.HeaderField]) error {
	if e := w.qpackEncoder(); e != nil {
		buf.Write(e.appendSection(buf.AvailableBuffer(), fields))
		return nil
	}
	return encodeFieldsWithoutTable(buf, fields)
}

// encodeFieldsWithoutTable encodes fields against the static table alone.
// A function of its own, not inlined: a range over fields in encodeFields
// moved its result and the loop's state to the heap, an allocation on
// every call, with a table too.
//
//go:noinline
func encodeFieldsWithoutTable(buf *bytes.Buffer, fields iter.Seq[qpack.HeaderField]) error {
	enc := qpack.NewEncoder(buf)
	for f := range fields {
		if err := enc.WriteField(f); err != nil {
			return err
		}
	}
	return nil
}

// toQlogFields is fields as qlog records them.
func toQlogFields(fields iter.Seq[qpack.HeaderField]) []qlog.HeaderField {
	var out []qlog.HeaderField
	for f := range fields {
		out = append(out, qlog.HeaderField{Name: f.Name, Value: f.Value})
	}
	return out
}

// qpackEncoder returns the connection's QPACK dynamic table, if it has one
// (a test's writer has no connection).
func (w *responseWriter) qpackEncoder() *qpackEncoder {
	if w.conn == nil {
		return nil
	}
	return w.conn.qpackEncoder.Load()
}

// smallBody returns the body buffered so far.
func (w *responseWriter) smallBody() []byte {
	if len(w.smallResponse) == 0 {
		return nil
	}
	return w.smallResponse[responseHeadroom:]
}

func (w *responseWriter) writeHeader(status int) error {
	buf, err := w.encodeHeader(status, 0)
	if err != nil {
		return err
	}
	_, err = w.str.writeUnframed(buf)
	return err
}

// headerBlockPool holds the buffers response heads are encoded in before
// they are copied into their frame (lastmile patch: a fresh bytes.Buffer
// grew through three or four allocations per response).
var headerBlockPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putHeaderBlock returns b to the pool unless an unusually large head grew
// it: the pool should not keep such buffers alive.
func putHeaderBlock(b *bytes.Buffer) {
	if b.Cap() <= 4096 {
		headerBlockPool.Put(b)
	}
}

// encodeHeader returns the HEADERS frame of the response, with room for
// spare more bytes.
func (w *responseWriter) encodeHeader(status, spare int) ([]byte, error) {
	var headerFields []qlog.HeaderField // only used for qlog
	headers := headerBlockPool.Get().(*bytes.Buffer)
	defer putHeaderBlock(headers)
	headers.Reset()

	// Handle trailer fields
	if vals, ok := w.header["Trailer"]; ok {
		for _, val := range vals {
			for trailer := range strings.SplitSeq(val, ",") {
				// We need to convert to the canonical header key value here because this will be called when using
				// headers.Add or headers.Set.
				trailer = textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(trailer))
				w.declareTrailer(trailer)
			}
		}
	}

	fields := func(yield func(qpack.HeaderField) bool) {
		if !yield(qpack.HeaderField{Name: ":status", Value: strconv.Itoa(status)}) {
			return
		}
		for k, v := range w.header {
			if _, excluded := w.trailers[k]; excluded {
				continue
			}
			// Ignore "Trailer:" prefixed headers
			if strings.HasPrefix(k, http.TrailerPrefix) {
				continue
			}
			name := lowerHeaderName(k)
			for _, value := range v {
				if !yield(qpack.HeaderField{Name: name, Value: value}) {
					return
				}
			}
		}
	}
	if w.str.qlogger != nil {
		// The header map's order is random: log the order encoded.
		collected := slices.Collect(iter.Seq[qpack.HeaderField](fields))
		headerFields = toQlogFields(slices.Values(collected))
		fields = slices.Values(collected)
	}
	if err := w.encodeFields(headers, fields); err != nil {
		return nil, err
	}

	buf := make([]byte, 0, frameHeaderLen+headers.Len()+spare)
	buf = (&headersFrame{Length: uint64(headers.Len())}).Append(buf)
	buf = append(buf, headers.Bytes()...)

	if w.str.qlogger != nil {
		qlogCreatedHeadersFrame(w.str.qlogger, w.str.StreamID(), len(buf), headers.Len(), headerFields)
	}
	return buf, nil
}

func (w *responseWriter) FlushError() error {
	if !w.headerComplete {
		w.WriteHeader(http.StatusOK)
	}
	_, err := w.doWrite(nil)
	return err
}

func (w *responseWriter) flushTrailers() {
	if w.trailerWritten {
		return
	}
	if err := w.writeTrailers(); err != nil {
		if w.logger != nil {
			w.logger.Debug("could not write trailers", "error", err)
		}
	}
}

func (w *responseWriter) Flush() {
	if err := w.FlushError(); err != nil {
		if w.logger != nil {
			w.logger.Debug("could not flush to stream", "error", err)
		}
	}
}

// declareTrailer adds a trailer to the trailer list, while also validating that the trailer has a
// valid name.
func (w *responseWriter) declareTrailer(k string) {
	if !httpguts.ValidTrailerHeader(k) {
		// Forbidden by RFC 9110, section 6.5.1.
		if w.logger != nil {
			w.logger.Debug("ignoring invalid trailer", slog.String("header", k))
		}
		return
	}
	if w.trailers == nil {
		w.trailers = make(map[string]struct{})
	}
	w.trailers[k] = struct{}{}
}

// writeTrailers will write trailers to the stream if there are any.
func (w *responseWriter) writeTrailers() error {
	// promote headers added via "Trailer:" convention as trailers, these can be added after
	// streaming the status/headers have been written.
	for k := range w.header {
		if strings.HasPrefix(k, http.TrailerPrefix) {
			w.declareTrailer(k)
		}
	}

	if len(w.trailers) == 0 {
		return nil
	}

	trailers := make(http.Header, len(w.trailers))
	for trailer := range w.trailers {
		if vals, ok := w.header[trailer]; ok {
			trailers[strings.TrimPrefix(trailer, http.TrailerPrefix)] = vals
		}
	}

	written, err := writeTrailers(w.str.datagramStream, trailers, w.str.StreamID(), w.str.qlogger)
	if written {
		w.trailerWritten = true
	}
	return maybeReplaceError(err)
}

func (w *responseWriter) HTTPStream() *Stream {
	w.hijacked = true
	// The stream may carry datagrams now (lastmile patch: see
	// newUnwatchedStateTrackingStream).
	if t, ok := w.str.datagramStream.(*stateTrackingStream); ok {
		t.watchSendSide()
	}
	w.Flush()
	return w.str
}

func (w *responseWriter) wasStreamHijacked() bool { return w.hijacked }

func (w *responseWriter) ReceivedSettings() <-chan struct{} {
	return w.conn.ReceivedSettings()
}

func (w *responseWriter) Settings() *Settings {
	return w.conn.Settings()
}

func (w *responseWriter) SetReadDeadline(deadline time.Time) error {
	return w.str.SetReadDeadline(deadline)
}

func (w *responseWriter) SetWriteDeadline(deadline time.Time) error {
	return w.str.SetWriteDeadline(deadline)
}

// autoContentLength says whether the server may state the length of what
// the handler wrote as the response's Content-Length (lastmile patch).
func (w *responseWriter) autoContentLength() bool {
	status := w.status
	if !w.headerComplete {
		status = http.StatusOK
	}
	return bodyAllowedForStatus(status) && (!w.isHead || w.numWritten > 0)
}

// copied from http2/http2.go
// bodyAllowedForStatus reports whether a given response status code
// permits a body. See RFC 2616, section 4.4.
func bodyAllowedForStatus(status int) bool {
	switch {
	case status >= 100 && status <= 199:
		return false
	case status == http.StatusNoContent:
		return false
	case status == http.StatusNotModified:
		return false
	}
	return true
}
