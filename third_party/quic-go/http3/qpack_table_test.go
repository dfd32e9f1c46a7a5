package http3

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/quic-go/qpack"
	"github.com/stretchr/testify/require"
)

// A client that offers a QPACK table gets the fields a server repeats as
// references to it: a response's head shrinks once its fields were
// inserted and acknowledged, and decodes to the same fields. Both ways a
// server writes heads are covered: from the header map, and a field
// section encoded without a table (EncodedResponseWriter).
func TestQPACKTableShrinksRepeatedResponses(t *testing.T) {
	fields := map[string]string{
		"Content-Type":  "text/css; charset=utf-8",
		"Cache-Control": "public, max-age=60, stale-while-revalidate=10",
		"Cache-Status":  "lastmile; hit",
		"Via":           "3 lastmile",
	}
	var encoded bytes.Buffer
	enc := qpack.NewEncoder(&encoded)
	require.NoError(t, enc.WriteField(qpack.HeaderField{Name: ":status", Value: "200"}))
	for k, v := range fields {
		require.NoError(t, enc.WriteField(qpack.HeaderField{Name: lowerHeaderName(k), Value: v}))
	}
	for _, path := range []string{"/map", "/encoded"} {
		t.Run(path, func(t *testing.T) {
			without := steadyBytesPerResponse(t, path, nil, fields, encoded.Bytes())
			with := steadyBytesPerResponse(t, path, map[uint64]uint64{settingQPACKMaxTableCapacity: 64 << 10}, fields, encoded.Bytes())
			t.Logf("bytes received per response: %d with the table offered, %d without", with, without)
			require.LessOrEqual(t, with+60, without)
		})
	}
}

// steadyBytesPerResponse makes 30 requests on a new connection and returns
// the fewest bytes the client received for one of the last 10.
func steadyBytesPerResponse(t *testing.T, path string, settings map[uint64]uint64, fields map[string]string, encoded []byte) uint64 {
	clientConn, serverConn := newConnPair(t)
	s := &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/encoded" {
			require.NoError(t, w.(EncodedResponseWriter).WriteEncodedResponse(200, encoded, []byte("body")))
			return
		}
		for k, v := range fields {
			w.Header().Set(k, v)
		}
		w.Write([]byte("body"))
	})}
	go s.ServeQUICConn(serverConn)
	cc := (&Transport{AdditionalSettings: settings}).NewClientConn(clientConn)
	smallest := uint64(1 << 20)
	for i := range 30 {
		before := clientConn.ConnectionStats().BytesReceived
		req, err := http.NewRequest(http.MethodGet, "https://example.com"+path, nil)
		require.NoError(t, err)
		rsp, err := cc.RoundTrip(req)
		require.NoError(t, err)
		body, err := io.ReadAll(rsp.Body)
		require.NoError(t, err)
		require.Equal(t, "body", string(body))
		for k, v := range fields {
			require.Equal(t, v, rsp.Header.Get(k), "response %d", i)
		}
		if i >= 20 {
			smallest = min(smallest, clientConn.ConnectionStats().BytesReceived-before)
		}
	}
	return smallest
}
