package quic

import (
	"testing"

	"github.com/quic-go/quic-go/internal/protocol"
	"github.com/quic-go/quic-go/internal/wire"

	"github.com/stretchr/testify/require"
)

// requireFills checks that a frame of length bytes fills room: exactly, or
// one byte short below fullDataLenAllowanceFrom (withDataLenAllowance).
func requireFills(t *testing.T, room, length protocol.ByteCount) {
	t.Helper()
	require.LessOrEqual(t, length, room)
	shortfall := protocol.ByteCount(0)
	if room <= fullDataLenAllowanceFrom {
		shortfall = 1
	}
	require.GreaterOrEqual(t, length, room-shortfall)
}

// A packet's last STREAM frame, popped at withDataLenAllowance and stripped
// of its Length field, never overflows the room left, whatever its header.
// Upstream's allowance overflowed by one byte at rooms of 64 to 80 bytes.
func TestFramerDataLenAllowanceFitsEveryHeader(t *testing.T) {
	ids := []protocol.StreamID{0, 63, 64, 16383, 16384, 1 << 30, 1<<62 - 1}
	offsets := []protocol.ByteCount{0, 63, 64, 16383, 16384, 1 << 30, 1<<62 - 1}
	for room := protocol.MinStreamFrameSize; room < 2000; room++ {
		for _, id := range ids {
			for _, offset := range offsets {
				f := &wire.StreamFrame{StreamID: id, Offset: offset, DataLenPresent: true}
				dataLen := f.MaxDataLen(withDataLenAllowance(room), protocol.Version1)
				if dataLen == 0 {
					continue // no room for this header: a stream pops no frame
				}
				f.Data = make([]byte, dataLen)
				f.DataLenPresent = false
				length := f.Length(protocol.Version1)
				require.LessOrEqualf(t, length, room, "stream %d, offset %d", id, offset)
				require.GreaterOrEqualf(t, length, room-1, "stream %d, offset %d", id, offset)
			}
		}
	}
}
