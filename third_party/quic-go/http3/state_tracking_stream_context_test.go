package http3

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/stretchr/testify/require"
)

// lastmile patch: Close does the send side's done work itself instead of
// leaving it to the goroutine context.AfterFunc would start.
func TestStateTrackingStreamCloseRunsSendSideDoneAtOnce(t *testing.T) {
	client, _ := newStreamPair(t)
	str := newStateTrackingStream(client, &mockStreamClearer{}, func([]byte) error { return nil })

	require.NoError(t, str.Close())
	require.Error(t, client.Context().Err())
	require.False(t, str.stopAfterFunc(), "an AfterFunc is still registered")
}

// lastmile patch: a server's request stream is watched for its send side's
// end only once its handler takes it over (HTTPStream); then a reset by
// the peer reaches its datagrams without a write.
func TestServerRequestStreamWatchedOnceTakenOver(t *testing.T) {
	clientConn, serverConn := newConnPair(t)
	str, err := clientConn.OpenStream()
	require.NoError(t, err)
	_, err = str.Write(encodeRequest(t, httptest.NewRequest(http.MethodGet, "https://www.example.com", nil)))
	require.NoError(t, err)

	taken := make(chan *Stream, 1)
	s := &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tracked := w.(*responseWriter).str.datagramStream.(*stateTrackingStream)
		tracked.mx.Lock()
		watched := tracked.stopAfterFunc != nil
		tracked.mx.Unlock()
		require.False(t, watched, "watched before the handler took the stream over")
		taken <- w.(HTTPStreamer).HTTPStream()
	})}
	go s.ServeQUICConn(serverConn)
	var hstr *Stream
	select {
	case hstr = <-taken:
	case <-time.After(time.Second):
		t.Fatal("the handler was not called")
	}

	str.CancelRead(1337) // STOP_SENDING: the server's send side is reset
	require.Eventually(t, func() bool {
		var streamErr *quic.StreamError
		return errors.As(hstr.SendDatagram([]byte("x")), &streamErr) && streamErr.ErrorCode == 1337
	}, time.Second, time.Millisecond)
}
