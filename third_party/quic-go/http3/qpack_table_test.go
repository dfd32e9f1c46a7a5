package http3

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/quic-go/qpack"
	"github.com/quic-go/quic-go/http3/qlog"
	"github.com/quic-go/quic-go/testutils/events"

	"github.com/stretchr/testify/require"
)

// A client that offers a QPACK table gets the fields a server repeats as
// references to it: a response's head shrinks once its fields were
// inserted and acknowledged, and decodes to the same fields. Both ways a
// server writes heads are covered: from the header map, a field section
// encoded without a table (EncodedResponseWriter) and a list of fields
// (FieldsResponseWriter).
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
	for _, path := range []string{"/map", "/encoded", "/fields"} {
		t.Run(path, func(t *testing.T) {
			without := sectionSizes(t, path, nil, fields, encoded.Bytes(), func([]int) bool { return false })
			for _, n := range without {
				require.Equal(t, without[0], n, "without a table every section is the same")
			}
			// Inserted at its second use after the client's SETTINGS
			// arrived, a field is referred to once the client's
			// acknowledgment did: a few responses later.
			shrunk := func(sizes []int) bool { return sizes[len(sizes)-1]+60 <= without[0] }
			with := sectionSizes(t, path, map[uint64]uint64{settingQPACKMaxTableCapacity: 64 << 10}, fields, encoded.Bytes(), shrunk)
			t.Logf("field section sizes: %v with the table offered, %d without", with, without[0])
			require.True(t, shrunk(with))
		})
	}
}

// sectionSizes makes requests on a new connection, 30 or until done says
// so (at most 300), and returns the sizes of the field sections the
// client decoded.
func sectionSizes(t *testing.T, path string, settings map[uint64]uint64, fields map[string]string, encoded []byte, done func([]int) bool) []int {
	var recorder events.Recorder
	clientConn, serverConn := newConnPair(t, withClientRecorder(&recorder))
	s := &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/encoded":
			require.NoError(t, w.(EncodedResponseWriter).WriteEncodedResponse(200, encoded, []byte("body")))
			return
		case "/fields":
			list := []qpack.HeaderField{{Name: ":status", Value: "200"}}
			for k, v := range fields {
				list = append(list, qpack.HeaderField{Name: lowerHeaderName(k), Value: v})
			}
			fw := w.(FieldsResponseWriter)
			if settings == nil { // with a table offered, the first requests may come before the SETTINGS
				require.False(t, fw.QPACKTable())
			}
			require.NoError(t, fw.WriteFieldsResponse(200, list, []byte("body")))
			return
		}
		for k, v := range fields {
			w.Header().Set(k, v)
		}
		w.Header().Set("Date", "Tue, 24 Nov 2026 20:00:00 GMT") // not the clock's
		w.Write([]byte("body"))
	})}
	go s.ServeQUICConn(serverConn)
	cc := (&Transport{AdditionalSettings: settings}).NewClientConn(clientConn)
	var sizes []int
	for i := 0; i < 300 && (i < 30 || !done(sizes)); i++ {
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
		sizes = headersSizes(&recorder)
		require.Len(t, sizes, i+1)
	}
	return sizes
}

// headersSizes returns the sizes of the HEADERS frames' field sections
// parsed so far.
func headersSizes(r *events.Recorder) []int {
	var sizes []int
	for _, ev := range r.Events(qlog.FrameParsed{}) {
		if f := ev.(qlog.FrameParsed); f.Frame.Frame != nil {
			if _, ok := f.Frame.Frame.(qlog.HeadersFrame); ok {
				sizes = append(sizes, f.Raw.PayloadLength)
			}
		}
	}
	return sizes
}

// A response head encoded against a table whose fields were all inserted
// and acknowledged costs no allocation (lastmile patch): a kept
// connection's cache hits are such heads.
func TestEncodeFieldsWithTableDoesNotAllocate(t *testing.T) {
	fields := []qpack.HeaderField{
		{Name: ":status", Value: "200"},
		{Name: "content-type", Value: "text/css; charset=utf-8"},
		{Name: "cache-status", Value: "lastmile; hit"},
	}
	table := qpack.NewEncoderTable(64<<10, 4096)
	var decoderStream, encoderStream bytes.Buffer
	decoder := qpack.NewDynamicDecoder(64<<10, &decoderStream)
	for i := range 3 { // remembered, inserted, acknowledged
		decode := decoder.DecodeStream(uint64(4*i), table.AppendSection(nil, slices.Values(fields)))
		for _, err := decode(); err != io.EOF; _, err = decode() {
			require.NoError(t, err)
		}
		require.NoError(t, table.WriteInstructions(func(b []byte) error { encoderStream.Write(b); return nil }))
		require.ErrorIs(t, decoder.ReadEncoderStream(&encoderStream), io.EOF)
		require.ErrorIs(t, table.ReadDecoderStream(&decoderStream), io.EOF)
	}
	w := &responseWriter{conn: &rawConn{}}
	w.conn.qpackEncoder.Store(&qpackEncoder{table: table})
	var section bytes.Buffer
	section.Grow(256)
	allocs := testing.AllocsPerRun(100, func() {
		section.Reset()
		require.NoError(t, w.encodeFields(&section, slices.Values(fields)))
	})
	require.Less(t, section.Len(), 8, "the fields are referred to in the table")
	require.Zero(t, allocs)
}
