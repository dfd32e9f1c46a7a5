package quic

import (
	"context"
	"testing"

	"github.com/quic-go/quic-go/internal/protocol"
	"github.com/quic-go/quic-go/internal/wire"

	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
)

// requireFills checks that a frame of length bytes fills room: exactly, or
// one byte short below fullDataLenAllowanceFrom (withDataLenAllowance).
func requireFills(t *testing.T, room, length protocol.ByteCount) {
	t.Helper()
	require.LessOrEqual(t, length, room)
	shortfall := protocol.ByteCount(0)
	if room < fullDataLenAllowanceFrom {
		shortfall = 1
	}
	require.GreaterOrEqual(t, length, room-shortfall)
}

var (
	allowanceTestStreamIDs = []protocol.StreamID{0, 63, 64, 16383, 16384, 1 << 30, 1<<62 - 1}
	allowanceTestOffsets   = []protocol.ByteCount{0, 63, 64, 16383, 16384, 1 << 30, 1<<62 - 1}
)

// A packet's last STREAM frame, popped at withDataLenAllowance and stripped
// of its Length field, never overflows the room left, whatever its header.
// Upstream's allowance overflowed by one byte at rooms of 64 to 79 bytes.
func TestFramerDataLenAllowanceFitsEveryHeader(t *testing.T) {
	for room := protocol.MinStreamFrameSize; room < 2000; room++ {
		for _, id := range allowanceTestStreamIDs {
			for _, offset := range allowanceTestOffsets {
				f := &wire.StreamFrame{StreamID: id, Offset: offset, DataLenPresent: true}
				dataLen := f.MaxDataLen(withDataLenAllowance(room), protocol.Version1)
				if dataLen == 0 {
					continue // no room for this header: a stream pops no frame
				}
				f.Data = make([]byte, dataLen)
				f.DataLenPresent = false
				requireFills(t, room, f.Length(protocol.Version1))
			}
		}
	}
}

// The same for a retransmission, which is split off a lost frame
// (popRetransmissionFrame): it fits, and never goes without data or FIN.
func TestFramerDataLenAllowanceFitsSplitRetransmissions(t *testing.T) {
	for room := protocol.MinStreamFrameSize; room < 300; room++ {
		for _, id := range allowanceTestStreamIDs {
			for _, offset := range allowanceTestOffsets {
				for _, fin := range []bool{false, true} {
					lost := &wire.StreamFrame{StreamID: id, Offset: offset, Data: make([]byte, 1000), Fin: fin, DataLenPresent: true}
					f, _ := lost.MaybeSplitOffFrame(withDataLenAllowance(room), protocol.Version1)
					if f == nil {
						continue // no room: it waits for the next packet
					}
					require.True(t, f.DataLen() > 0 || f.Fin)
					f.DataLenPresent = false
					require.LessOrEqual(t, f.Length(protocol.Version1), room)
				}
			}
		}
	}
}

// A stream's FIN alone waits for a packet with room for its frame: at
// MinStreamFrameSize 16 a long stream ID and offset may not fit.
func TestSendStreamFinOnlyFitsItsRoom(t *testing.T) {
	const id = protocol.StreamID(1 << 60) // an 8-byte stream ID
	mockSender := NewMockStreamSender(gomock.NewController(t))
	mockSender.EXPECT().onHasStreamData(id, gomock.Any()).AnyTimes()
	str := newSendStream(context.Background(), id, mockSender, newTestStreamFlowControllerWithSendWindow(id, protocol.MaxByteCount), false)
	require.NoError(t, str.Close())

	finLen := (&wire.StreamFrame{StreamID: id, Fin: true, DataLenPresent: true}).Length(protocol.Version1)
	frame, _, hasMore := str.popStreamFrame(finLen-1, protocol.Version1)
	require.Nil(t, frame.Frame)
	require.True(t, hasMore, "the FIN is still to be sent")
	frame, _, hasMore = str.popStreamFrame(finLen, protocol.Version1)
	require.NotNil(t, frame.Frame)
	require.True(t, frame.Frame.Fin)
	require.False(t, hasMore)
}
