package ackhandler

import (
	"testing"

	"github.com/quic-go/quic-go/internal/protocol"
	"github.com/quic-go/quic-go/internal/wire"

	"github.com/stretchr/testify/require"
)

// sendRetransmission sends a packet retransmitting n bytes of stream 0 at
// offset, as a stream's retransmission queue hands them out.
func (c *tailCopyConn) sendRetransmission(offset protocol.ByteCount, n int) protocol.PacketNumber {
	f := &wire.StreamFrame{StreamID: 0, Offset: offset, Data: make([]byte, n), DataLenPresent: true}
	for i := range f.Data {
		f.Data[i] = byte(int(offset) + i)
	}
	return c.send([]StreamFrame{{Frame: f, Handler: &customFrameHandler{}, Retransmission: true}}, nil, protocol.ByteCount(n)+30)
}

func TestRetransmissionCopiedOnce(t *testing.T) {
	c := newTailCopyConn(t, protocol.PerspectiveServer)
	for range 10 {
		c.sendData(1000)
	}
	require.Nil(t, c.sph.NextRetransmissionCopy(), "new data is not copied")
	pn := c.sendRetransmission(2000, 1000)
	p, ok := c.sph.appDataPackets.history.getIndex(pn)
	require.True(t, ok)
	original := c.sph.appDataPackets.history.packets[p].StreamFrames[0].Frame

	frames := c.sph.NextRetransmissionCopy()
	require.Len(t, frames, 1)
	require.Nil(t, frames[0].Handler, "the stream keeps tracking the retransmission")
	require.False(t, frames[0].Retransmission)
	require.Equal(t, original.Offset, frames[0].Frame.Offset)
	require.Equal(t, original.Data, frames[0].Frame.Data)
	require.NotSame(t, &original.Data[0], &frames[0].Frame.Data[0], "the original's buffer goes back to a pool when it is acknowledged")
	require.Nil(t, c.sph.NextRetransmissionCopy(), "each retransmission is copied once")

	// The copy goes out; it is not copied again, by either kind of copy.
	c.send(frames, nil, 1030)
	require.Nil(t, c.sph.NextRetransmissionCopy())
	require.Nil(t, c.sph.TailCopies(), "nor is the retransmission a new small flight")
}

// Only the retransmitted frames of a packet that also carries new data are
// copied as a retransmission; the new data may be a tail copy's.
func TestRetransmissionCopyOfAMixedPacket(t *testing.T) {
	c := newTailCopyConn(t, protocol.PerspectiveServer)
	retransmitted := &wire.StreamFrame{StreamID: 0, Offset: 0, Data: make([]byte, 400), DataLenPresent: true}
	fresh := &wire.StreamFrame{StreamID: 4, Offset: 0, Data: make([]byte, 600), DataLenPresent: true}
	c.send([]StreamFrame{
		{Frame: retransmitted, Handler: &customFrameHandler{}, Retransmission: true},
		{Frame: fresh, Handler: &customFrameHandler{}},
	}, nil, 1030)
	frames := c.sph.NextRetransmissionCopy()
	require.Len(t, frames, 1)
	require.Equal(t, protocol.StreamID(0), frames[0].Frame.StreamID)
	tail := c.sph.TailCopies()
	require.Len(t, tail, 1)
	require.Len(t, tail[0], 1)
	require.Equal(t, protocol.StreamID(4), tail[0][0].Frame.StreamID)
}

// A copy the window held back until its retransmission was acknowledged
// would only add a packet.
func TestRetransmissionCopyDroppedOnceAcknowledged(t *testing.T) {
	c := newTailCopyConn(t, protocol.PerspectiveServer)
	first := c.sendRetransmission(0, 1000)
	second := c.sendRetransmission(1000, 1000)
	c.ack(first)
	frames := c.sph.NextRetransmissionCopy()
	require.Len(t, frames, 1)
	require.Equal(t, protocol.ByteCount(1000), frames[0].Frame.Offset, "the copy of the acknowledged one is dropped")
	c.ack(second)
	require.Nil(t, c.sph.NextRetransmissionCopy())
}

func TestRetransmissionCopiesOnlyForServers(t *testing.T) {
	c := newTailCopyConn(t, protocol.PerspectiveClient)
	c.sendRetransmission(0, 1000)
	require.Nil(t, c.sph.NextRetransmissionCopy())
}

// Retransmission and tail copies share one budget: a path that loses
// everything is not sent everything twice.
func TestRetransmissionCopiesBudget(t *testing.T) {
	c := newTailCopyConn(t, protocol.PerspectiveServer)
	var copied, sentBytes protocol.ByteCount
	for i := range 200 {
		pn := c.sendRetransmission(protocol.ByteCount(i)*1000, 1000)
		sentBytes += 1030
		for frames := c.sph.NextRetransmissionCopy(); frames != nil; frames = c.sph.NextRetransmissionCopy() {
			copied += frames[0].Frame.DataLen()
		}
		c.ack(pn)
	}
	require.Positive(t, copied)
	require.LessOrEqual(t, copied, tailCopyCredit+sentBytes/8)
	require.Greater(t, copied, sentBytes/8-1000, "the budget is used, not just the credit")
}

// A dropped copy gives its bytes back to the budget, and a window that
// keeps copies from going holds at most maxQueuedRetransmissionCopies.
func TestRetransmissionCopiesDroppedGiveBackAndQueueBounded(t *testing.T) {
	c := newTailCopyConn(t, protocol.PerspectiveServer)
	var pns []protocol.PacketNumber
	for i := range 2 * maxQueuedRetransmissionCopies {
		pns = append(pns, c.sendRetransmission(protocol.ByteCount(i)*100, 100))
	}
	require.Len(t, c.sph.retransmissionCopies, maxQueuedRetransmissionCopies)
	var queued protocol.ByteCount
	for _, q := range c.sph.retransmissionCopies {
		queued += q.frames[0].Frame.Length(protocol.Version1) + copyPacketOverhead
	}
	require.Equal(t, queued, c.sph.tailCopies.bytes, "each copy is charged as its packet")
	c.ack(pns...)
	require.Nil(t, c.sph.NextRetransmissionCopy(), "every retransmission was acknowledged")
	require.Zero(t, c.sph.tailCopies.bytes, "dropped copies cost the budget nothing")
}
