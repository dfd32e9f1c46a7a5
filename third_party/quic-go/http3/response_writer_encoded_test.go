package http3

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/quic-go/qpack"
	"github.com/quic-go/quic-go"

	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
)

// encodeFieldSection is a field section of :status and fields, name and
// value in turn, as a handler keeps one.
func encodeFieldSection(t *testing.T, status string, fields ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := qpack.NewEncoder(&b)
	require.NoError(t, enc.WriteField(qpack.HeaderField{Name: ":status", Value: status}))
	for i := 0; i+1 < len(fields); i += 2 {
		require.NoError(t, enc.WriteField(qpack.HeaderField{Name: fields[i], Value: fields[i+1]}))
	}
	return b.Bytes()
}

func TestWriteEncodedResponseInOneOwnedBuffer(t *testing.T) {
	rw, str := newOwnedFinishTestResponseWriter(t)
	body := bytes.Repeat([]byte("x"), 2048)
	section := encodeFieldSection(t, "200", "cache-control", "max-age=60", "content-length", "2048")
	require.NoError(t, rw.WriteEncodedResponse(http.StatusOK, section, body))
	// The handler returns: the server finishes the response, which
	// adds nothing.
	require.NoError(t, rw.finish())

	require.Len(t, str.handed, 1)
	fields, got := decodeResponse(t, str.handed[0])
	require.Equal(t, map[string]string{":status": "200", "cache-control": "max-age=60", "content-length": "2048"}, fields)
	require.Equal(t, body, got)
	require.True(t, rw.headerWritten)
}

// Without a QPACK table, a list of fields is encoded with the static
// table and sent as WriteEncodedResponse sends its section.
func TestWriteFieldsResponseWithoutTable(t *testing.T) {
	rw, str := newOwnedFinishTestResponseWriter(t)
	require.False(t, rw.QPACKTable())
	body := bytes.Repeat([]byte("x"), 2048)
	require.NoError(t, rw.WriteFieldsResponse(http.StatusOK, []qpack.HeaderField{
		{Name: ":status", Value: "200"}, {Name: "cache-control", Value: "max-age=60"}, {Name: "content-length", Value: "2048"},
	}, body))
	require.NoError(t, rw.finish())

	require.Len(t, str.handed, 1)
	fields, got := decodeResponse(t, str.handed[0])
	require.Equal(t, map[string]string{":status": "200", "cache-control": "max-age=60", "content-length": "2048"}, fields)
	require.Equal(t, body, got)
	require.ErrorContains(t, rw.WriteFieldsResponse(http.StatusOK, []qpack.HeaderField{{Name: ":status", Value: "200"}}, nil), "after the response was begun")

	rw, _ = newOwnedFinishTestResponseWriter(t)
	require.ErrorContains(t, rw.WriteFieldsResponse(http.StatusOK, nil, body), ":status 200 first")
	require.ErrorContains(t, rw.WriteFieldsResponse(http.StatusOK, []qpack.HeaderField{{Name: ":status", Value: "404"}}, body), ":status 200 first")
	require.False(t, rw.headerWritten)
}

func TestWriteEncodedResponseToHEADSendsNoBody(t *testing.T) {
	str := &ownedStream{MockDatagramStream: NewMockDatagramStream(gomock.NewController(t))}
	str.EXPECT().StreamID().Return(quic.StreamID(4)).AnyTimes()
	rw := newResponseWriter(newStream(str, nil, nil, func(io.Reader, *headersFrame) error { return nil }, nil), nil, true, nil)
	section := encodeFieldSection(t, "200", "content-length", "5")
	require.NoError(t, rw.WriteEncodedResponse(http.StatusOK, section, []byte("hello")))
	require.NoError(t, rw.finish())

	require.Len(t, str.handed, 1)
	fields, body := decodeResponse(t, str.handed[0])
	require.Equal(t, "5", fields["content-length"])
	require.Nil(t, body)
}

// A body of maxSmallResponseSize or more is not copied behind its head.
func TestWriteEncodedResponseWritesLargeBodyAfterHead(t *testing.T) {
	rw, str := newFinishTestResponseWriter(t)
	var written [][]byte
	str.EXPECT().Write(gomock.Any()).DoAndReturn(func(b []byte) (int, error) {
		written = append(written, b)
		return len(b), nil
	}).Times(2)
	body := bytes.Repeat([]byte("y"), maxSmallResponseSize)
	require.NoError(t, rw.WriteEncodedResponse(http.StatusOK, encodeFieldSection(t, "200"), body))
	require.NoError(t, rw.finish())

	require.Same(t, &body[0], &written[1][0], "the body was copied")
	fields, got := decodeResponse(t, append(written[0], written[1]...))
	require.Equal(t, "200", fields[":status"])
	require.Equal(t, body, got)
}

// Flow control that cannot take the response at once: a write that waits.
func TestWriteEncodedResponseWaitsWhenFlowControlBlocks(t *testing.T) {
	rw, str := newFinishTestResponseWriter(t)
	var written []byte
	gomock.InOrder(
		str.EXPECT().TryWriteAll(gomock.Any()).Return(quic.ErrWouldBlock),
		str.EXPECT().Write(gomock.Any()).DoAndReturn(func(b []byte) (int, error) {
			written = append(written, b...)
			return len(b), nil
		}),
	)
	require.NoError(t, rw.WriteEncodedResponse(http.StatusNoContent, encodeFieldSection(t, "204"), []byte("dropped")))
	fields, body := decodeResponse(t, written)
	require.Equal(t, "204", fields[":status"])
	require.Nil(t, body)
}

func TestWriteEncodedResponseOnlyFirst(t *testing.T) {
	rw, _ := newFinishTestResponseWriter(t)
	rw.WriteHeader(http.StatusOK)
	require.Error(t, rw.WriteEncodedResponse(http.StatusOK, encodeFieldSection(t, "200"), nil))
	rw, _ = newFinishTestResponseWriter(t)
	require.Error(t, rw.WriteEncodedResponse(http.StatusContinue, encodeFieldSection(t, "100"), nil))
}
