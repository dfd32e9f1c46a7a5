package http3

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/quic-go/quic-go"

	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
)

// newFinishTestResponseWriter returns a response writer on a mock stream
// that expects no calls but StreamID's: each test names the writes it
// expects.
func newFinishTestResponseWriter(t *testing.T) (*responseWriter, *MockDatagramStream) {
	str := NewMockDatagramStream(gomock.NewController(t))
	str.EXPECT().StreamID().Return(quic.StreamID(4)).AnyTimes()
	return newResponseWriter(newStream(str, nil, nil, func(io.Reader, *headersFrame) error { return nil }, nil), nil, false, nil), str
}

// expectQueuedOnce expects one TryWriteAll that succeeds and returns what
// it was given.
func expectQueuedOnce(str *MockDatagramStream) *[]byte {
	var written []byte
	str.EXPECT().TryWriteAll(gomock.Any()).DoAndReturn(func(b []byte) error {
		written = append(written, b...)
		return nil
	}).Times(1)
	return &written
}

// decodeResponse parses a HEADERS frame and, if any, a DATA frame from b.
func decodeResponse(t *testing.T, b []byte) (map[string]string, []byte) {
	t.Helper()
	r := bytes.NewReader(b)
	frame, err := (&frameParser{r: r}).ParseNext(nil)
	require.NoError(t, err)
	require.IsType(t, &headersFrame{}, frame)
	data := make([]byte, frame.(*headersFrame).Length)
	_, err = io.ReadFull(r, data)
	require.NoError(t, err)
	fields := map[string]string{}
	for _, f := range decodeQpackHeaderFields(t, data) {
		fields[f.Name] = f.Value
	}
	if r.Len() == 0 {
		return fields, nil
	}
	frame, err = (&frameParser{r: r}).ParseNext(nil)
	require.NoError(t, err)
	require.IsType(t, &dataFrame{}, frame)
	body := make([]byte, frame.(*dataFrame).Length)
	_, err = io.ReadFull(r, body)
	require.NoError(t, err)
	require.Zero(t, r.Len(), "bytes after the DATA frame")
	return fields, body
}

func TestResponseWriterFinishQueuesSmallResponseInOneWrite(t *testing.T) {
	rw, str := newFinishTestResponseWriter(t)
	written := expectQueuedOnce(str)
	rw.Header().Set("Cache-Control", "max-age=60")
	body := bytes.Repeat([]byte("x"), 2048)
	_, err := rw.Write(body)
	require.NoError(t, err)
	require.NoError(t, rw.finish())

	fields, got := decodeResponse(t, *written)
	require.Equal(t, "200", fields[":status"])
	require.Equal(t, "max-age=60", fields["cache-control"])
	require.Equal(t, "text/plain; charset=utf-8", fields["content-type"])
	require.Equal(t, body, got)
}

func TestResponseWriterFinishHeaderOnly(t *testing.T) {
	rw, str := newFinishTestResponseWriter(t)
	written := expectQueuedOnce(str)
	rw.WriteHeader(http.StatusNoContent)
	require.NoError(t, rw.finish())

	fields, body := decodeResponse(t, *written)
	require.Equal(t, "204", fields[":status"])
	require.Nil(t, body)
}

// When flow control cannot take the response at once, it is written as
// before: a write that waits.
func TestResponseWriterFinishWaitsWhenFlowControlBlocks(t *testing.T) {
	rw, str := newFinishTestResponseWriter(t)
	var tried, written []byte
	gomock.InOrder(
		str.EXPECT().TryWriteAll(gomock.Any()).DoAndReturn(func(b []byte) error {
			tried = append(tried, b...)
			return quic.ErrWouldBlock
		}),
		str.EXPECT().Write(gomock.Any()).DoAndReturn(func(b []byte) (int, error) {
			written = append(written, b...)
			return len(b), nil
		}),
	)
	_, err := rw.Write([]byte("hello"))
	require.NoError(t, err)
	require.NoError(t, rw.finish())

	require.Equal(t, tried, written)
	_, body := decodeResponse(t, written)
	require.Equal(t, []byte("hello"), body)
}

// A stream reset by the peer fails the write; nothing is retried.
func TestResponseWriterFinishStreamError(t *testing.T) {
	rw, str := newFinishTestResponseWriter(t)
	resetErr := &quic.StreamError{StreamID: 4, ErrorCode: quic.StreamErrorCode(ErrCodeRequestCanceled), Remote: true}
	str.EXPECT().TryWriteAll(gomock.Any()).Return(resetErr)
	_, err := rw.Write([]byte("hello"))
	require.NoError(t, err)
	require.ErrorIs(t, rw.finish(), resetErr)
}

// A response whose headers were already written (a handler that flushed,
// or a body past maxSmallResponseSize) is finished as Flush does.
func TestResponseWriterFinishAfterHeaderWritten(t *testing.T) {
	rw, str := newFinishTestResponseWriter(t)
	var written []byte
	str.EXPECT().Write(gomock.Any()).DoAndReturn(func(b []byte) (int, error) {
		written = append(written, b...)
		return len(b), nil
	}).AnyTimes()
	rw.WriteHeader(http.StatusOK)
	rw.Flush()
	_, err := rw.Write([]byte("late"))
	require.NoError(t, err)
	require.NoError(t, rw.finish())

	fields, body := decodeResponse(t, written)
	require.Equal(t, "200", fields[":status"])
	require.Equal(t, []byte("late"), body)
}

// ownedStream is a mock stream that also takes buffers over, as quic-go's
// streams do (lastmile patch: TryWriteAllOwned).
type ownedStream struct {
	*MockDatagramStream
	handed [][]byte
}

func (s *ownedStream) TryWriteAllOwned(b []byte) error {
	s.handed = append(s.handed, b)
	return nil
}

func newOwnedFinishTestResponseWriter(t *testing.T) (*responseWriter, *ownedStream) {
	str := &ownedStream{MockDatagramStream: NewMockDatagramStream(gomock.NewController(t))}
	str.EXPECT().StreamID().Return(quic.StreamID(4)).AnyTimes()
	return newResponseWriter(newStream(str, nil, nil, func(io.Reader, *headersFrame) error { return nil }, nil), nil, false, nil), str
}

func TestResponseWriterFinishBuildsHeadInRoomBeforeBody(t *testing.T) {
	rw, str := newOwnedFinishTestResponseWriter(t)
	rw.Header().Set("Cache-Control", "max-age=60")
	body := bytes.Repeat([]byte("x"), 2048)
	_, err := rw.Write(body)
	require.NoError(t, err)
	buffered := &rw.smallBody()[0]
	require.NoError(t, rw.finish())

	require.Len(t, str.handed, 1)
	handed := str.handed[0]
	fields, got := decodeResponse(t, handed)
	require.Equal(t, "max-age=60", fields["cache-control"])
	require.Equal(t, body, got)
	require.Same(t, buffered, &handed[len(handed)-len(body)], "the body was copied")
}

func TestResponseWriterFinishCopiesHeadLargerThanRoom(t *testing.T) {
	rw, str := newOwnedFinishTestResponseWriter(t)
	large := string(bytes.Repeat([]byte("v"), 2*responseHeadroom))
	rw.Header().Set("X-Large", large)
	_, err := rw.Write([]byte("body"))
	require.NoError(t, err)
	require.NoError(t, rw.finish())

	require.Len(t, str.handed, 1)
	fields, got := decodeResponse(t, str.handed[0])
	require.Equal(t, large, fields["x-large"])
	require.Equal(t, []byte("body"), got)
}
