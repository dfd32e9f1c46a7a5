package http3

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The requests of a connection whose handshake is complete share one TLS
// state, as net/http's do.
func TestServerRequestsShareTLSState(t *testing.T) {
	clientConn, serverConn := newConnPair(t)
	states := make(chan *tls.ConnectionState, 2)
	s := &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		states <- r.TLS
	})}
	go s.ServeQUICConn(serverConn)

	for range 2 {
		str, err := clientConn.OpenStream()
		require.NoError(t, err)
		_, err = str.Write(encodeRequest(t, httptest.NewRequest(http.MethodGet, "https://www.example.com", nil)))
		require.NoError(t, err)
		require.NoError(t, str.Close())
		require.Equal(t, []string{"200"}, decodeHeader(t, str)[":status"])
		_, err = io.ReadAll(str)
		require.NoError(t, err)
	}
	var got [2]*tls.ConnectionState
	for i := range got {
		select {
		case got[i] = <-states:
		case <-time.After(5 * time.Second):
			t.Fatal("handler not called")
		}
	}
	require.NotNil(t, got[0])
	require.True(t, got[0].HandshakeComplete)
	require.Same(t, got[0], got[1])
}
