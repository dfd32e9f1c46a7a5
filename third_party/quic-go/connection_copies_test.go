package quic

// lastmile patch: tests of sendStreamFrameCopies' stream check.

import (
	"testing"

	"github.com/quic-go/quic-go/internal/protocol"
	"github.com/quic-go/quic-go/internal/wire"

	"github.com/stretchr/testify/require"
)

// No STREAM frame may follow a RESET_STREAM (RFC 9000 section 3.1): a
// copy of a stream's data is not sent once the stream was reset.
func TestCopiesNotAfterStreamReset(t *testing.T) {
	tc := newServerTestConnection(t, nil, nil, false)
	// The streams' flow control reads the peer's transport parameters.
	tc.conn.peerParams = &wire.TransportParameters{}
	// The client's first request stream.
	const id protocol.StreamID = 0
	str, err := tc.conn.streamsMap.getSendStream(id)
	require.NoError(t, err)
	require.NotNil(t, str)
	require.True(t, tc.conn.mayCopyStream(id))

	str.(*Stream).CancelWrite(42)
	require.False(t, tc.conn.mayCopyStream(id), "copy after RESET_STREAM")
}
