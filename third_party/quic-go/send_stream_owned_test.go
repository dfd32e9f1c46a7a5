package quic

import (
	"bytes"
	"context"
	"testing"

	"github.com/quic-go/quic-go/internal/protocol"

	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
)

// lastmile patch: TryWriteAllOwned keeps a slice larger than a pooled
// STREAM frame instead of copying it.

func TestSendStreamTryWriteAllOwnedKeepsLargeSlice(t *testing.T) {
	const streamID protocol.StreamID = 42
	mockSender := NewMockStreamSender(gomock.NewController(t))
	str := newSendStream(context.Background(), streamID, mockSender, newTestStreamFlowControllerWithSendWindow(streamID, protocol.MaxByteCount), false)

	data := bytes.Repeat([]byte("0123456789"), 300) // 3,000 bytes
	want := bytes.Clone(data)
	mockSender.EXPECT().onHasStreamData(streamID, str)
	require.NoError(t, str.TryWriteAllOwned(data))
	require.Same(t, &data[0], &str.nextFrame.Data[0], "the slice was copied")

	var got []byte
	for {
		frame, _, hasMore := str.popStreamFrame(1200, protocol.Version1)
		require.NotNil(t, frame.Frame)
		require.Equal(t, protocol.ByteCount(len(got)), frame.Frame.Offset)
		got = append(got, frame.Frame.Data...)
		if !hasMore {
			break
		}
	}
	require.Equal(t, want, got)
}

func TestSendStreamTryWriteAllOwnedCopiesSmallSliceOrAfterQueuedData(t *testing.T) {
	const streamID protocol.StreamID = 42
	mockSender := NewMockStreamSender(gomock.NewController(t))
	str := newSendStream(context.Background(), streamID, mockSender, newTestStreamFlowControllerWithSendWindow(streamID, protocol.MaxByteCount), false)
	mockSender.EXPECT().onHasStreamData(streamID, str).Times(2)

	// A small slice goes into a pooled frame, as with TryWriteAll.
	small := []byte("foobar")
	require.NoError(t, str.TryWriteAllOwned(small))
	require.Equal(t, int(protocol.MaxPacketBufferSize), cap(str.nextFrame.Data))
	// A large one behind queued data is appended after it.
	large := bytes.Repeat([]byte("x"), 2000)
	require.NoError(t, str.TryWriteAllOwned(large))
	require.NotSame(t, &large[0], &str.nextFrame.Data[0])

	frame, _, _ := str.popStreamFrame(protocol.MaxByteCount, protocol.Version1)
	require.Equal(t, append([]byte("foobar"), bytes.Repeat([]byte("x"), 2000)...), frame.Frame.Data)
}

func TestSendStreamTryWriteAllOwnedFlowControlBlocked(t *testing.T) {
	const streamID protocol.StreamID = 42
	mockSender := NewMockStreamSender(gomock.NewController(t))
	str := newSendStream(context.Background(), streamID, mockSender, newTestStreamFlowControllerWithSendWindow(streamID, 1000), false)

	require.ErrorIs(t, str.TryWriteAllOwned(make([]byte, 2000)), ErrWouldBlock)
	require.Nil(t, str.nextFrame, "nothing is queued")
}
