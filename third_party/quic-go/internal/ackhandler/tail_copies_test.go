package ackhandler

import (
	"testing"
	"time"

	"github.com/quic-go/quic-go/internal/monotime"
	"github.com/quic-go/quic-go/internal/protocol"
	"github.com/quic-go/quic-go/internal/utils"
	"github.com/quic-go/quic-go/internal/wire"

	"github.com/stretchr/testify/require"
)

// tailCopyConn drives a sentPacketHandler as a connection would: it sends
// packets of STREAM data (with a handler, as streams send them) and the
// copies TailCopies asks for (without).
type tailCopyConn struct {
	t      *testing.T
	sph    *sentPacketHandler
	now    monotime.Time
	offset protocol.ByteCount
}

func newTailCopyConn(t *testing.T, pers protocol.Perspective) *tailCopyConn {
	sph := NewSentPacketHandler(0, 1200, utils.NewRTTStats(), &utils.ConnectionStats{}, true, false, nil, pers, nil, utils.DefaultLogger)
	return &tailCopyConn{t: t, sph: sph.(*sentPacketHandler), now: monotime.Now()}
}

func (c *tailCopyConn) send(streamFrames []StreamFrame, frames []Frame, size protocol.ByteCount) protocol.PacketNumber {
	pn := c.sph.PopPacketNumber(protocol.Encryption1RTT)
	c.sph.SentPacket(c.now, pn, protocol.InvalidPacketNumber, streamFrames, frames, protocol.Encryption1RTT, protocol.ECNNon, size, false, false)
	c.now = c.now.Add(time.Millisecond)
	return pn
}

// sendData sends a packet of n bytes of stream 0.
func (c *tailCopyConn) sendData(n int) protocol.PacketNumber {
	f := &wire.StreamFrame{StreamID: 0, Offset: c.offset, Data: make([]byte, n), DataLenPresent: true}
	for i := range f.Data {
		f.Data[i] = byte(int(c.offset) + i)
	}
	c.offset += protocol.ByteCount(n)
	return c.send([]StreamFrame{{Frame: f, Handler: &customFrameHandler{}}}, nil, protocol.ByteCount(n)+30)
}

func (c *tailCopyConn) ack(pns ...protocol.PacketNumber) {
	c.t.Helper()
	c.now = c.now.Add(100 * time.Millisecond)
	_, err := c.sph.ReceivedAck(&wire.AckFrame{AckRanges: ackRanges(pns...)}, protocol.Encryption1RTT, c.now)
	require.NoError(c.t, err)
}

func TestTailCopiesOfASmallFinalFlight(t *testing.T) {
	c := newTailCopyConn(t, protocol.PerspectiveServer)
	var sent []*wire.StreamFrame
	for range 3 {
		pn := c.sendData(1000)
		p, ok := c.sph.appDataPackets.history.getIndex(pn)
		require.True(t, ok)
		sent = append(sent, c.sph.appDataPackets.history.packets[p].StreamFrames[0].Frame)
	}

	copies := c.sph.TailCopies()
	require.Len(t, copies, 3, "one copy per packet of the flight")
	for i, frames := range copies {
		require.Len(t, frames, 1)
		require.Nil(t, frames[0].Handler, "the stream keeps tracking the original")
		require.Equal(t, sent[i].StreamID, frames[0].Frame.StreamID)
		require.Equal(t, sent[i].Offset, frames[0].Frame.Offset)
		require.Equal(t, sent[i].Data, frames[0].Frame.Data)
		require.NotSame(t, &sent[i].Data[0], &frames[0].Frame.Data[0], "the original's buffer goes back to a pool when it is acknowledged")
	}
	require.Nil(t, c.sph.TailCopies(), "each packet is copied once")

	// The copies go out; with two of them left in flight nothing is
	// copied again: a copy is not copied.
	var copyPNs []protocol.PacketNumber
	for _, frames := range copies {
		copyPNs = append(copyPNs, c.send(frames, nil, 1030))
	}
	c.ack(0, 1, 2, copyPNs[0])
	require.Nil(t, c.sph.TailCopies())

	// The next small flight is copied.
	c.ack(copyPNs[1], copyPNs[2])
	c.sendData(500)
	require.Len(t, c.sph.TailCopies(), 1)
}

// An HTTP response as the lab's edge sends it: a control frame, the
// headers and body in one send, the FIN in the next.
func TestTailCopiesOfAResponseSentInTwoParts(t *testing.T) {
	c := newTailCopyConn(t, protocol.PerspectiveServer)
	c.send(nil, []Frame{{Frame: &wire.MaxStreamsFrame{}}}, 40) // no STREAM frames to copy
	c.sendData(279)
	c.sendData(1301)
	first := c.sph.TailCopies()
	require.Len(t, first, 2)
	for _, frames := range first {
		c.send(frames, nil, 1330)
	}
	c.sendData(0) // the FIN
	require.Len(t, c.sph.TailCopies(), 1, "the FIN is a new small flight")
}

// The next response often leaves while the previous one's last packets
// are still unacknowledged.
func TestTailCopiesBesidePacketsOfAnEarlierFlight(t *testing.T) {
	c := newTailCopyConn(t, protocol.PerspectiveServer)
	for range 5 {
		c.sendData(1000)
	}
	require.Nil(t, c.sph.TailCopies(), "a flight of 5")
	c.sendData(279)
	c.sendData(1301)
	require.Len(t, c.sph.TailCopies(), 2)
}

// A few packets inside a large transfer are repaired by the packets after
// them.
func TestTailCopiesNotInsideALargeTransfer(t *testing.T) {
	c := newTailCopyConn(t, protocol.PerspectiveServer)
	for range 20 {
		c.sendData(1000)
	}
	require.Nil(t, c.sph.TailCopies())
	c.sendData(1000)
	require.Nil(t, c.sph.TailCopies(), "20 packets in flight")
}

func TestTailCopiesSkipLargeFlights(t *testing.T) {
	c := newTailCopyConn(t, protocol.PerspectiveServer)
	var pns []protocol.PacketNumber
	for range 10 {
		pns = append(pns, c.sendData(1000))
	}
	require.Nil(t, c.sph.TailCopies(), "the packet threshold repairs a large flight")
	// Once most of it is acknowledged, its last packets are still not
	// copied: the flight was passed over.
	c.ack(pns[:8]...)
	require.Nil(t, c.sph.TailCopies())
}

func TestTailCopiesOnlyForServers(t *testing.T) {
	c := newTailCopyConn(t, protocol.PerspectiveClient)
	c.sendData(1000)
	require.Nil(t, c.sph.TailCopies())
}

func TestTailCopiesBudget(t *testing.T) {
	c := newTailCopyConn(t, protocol.PerspectiveServer)
	var copied protocol.ByteCount
	var sentBytes protocol.ByteCount
	// A connection that only ever sends one small message at a time.
	for range 200 {
		pn := c.sendData(1000)
		sentBytes += 1030
		for _, frames := range c.sph.TailCopies() {
			for _, f := range frames {
				copied += f.Frame.DataLen()
			}
		}
		c.ack(pn)
	}
	require.Positive(t, copied)
	require.LessOrEqual(t, copied, tailCopyCredit+sentBytes/8, "copies stay within the credit and an eighth of what was sent")
	require.Greater(t, copied, sentBytes/8-1000, "the budget is used, not just the credit")
}

// A copy the connection did not send (its stream reset, the window
// closed) gives its charge back.
func TestTailCopiesNotSentGiveBack(t *testing.T) {
	c := newTailCopyConn(t, protocol.PerspectiveServer)
	c.sendData(100)
	c.sendData(100)
	copies := c.sph.TailCopies()
	require.Len(t, copies, 2)
	require.Positive(t, c.sph.tailCopies.bytes)
	for _, frames := range copies {
		c.sph.CopyNotSent(frames)
	}
	require.Zero(t, c.sph.tailCopies.bytes)
}

// Copies are charged as the packets they go in: a connection of tiny
// messages is not sent each one twice for the few bytes of its data.
func TestTailCopiesBudgetCountsPackets(t *testing.T) {
	c := newTailCopyConn(t, protocol.PerspectiveServer)
	const messages = 2000
	var copies int
	var copiedBytes, sentBytes protocol.ByteCount
	for range messages {
		pn := c.sendData(1)
		sentBytes += 31
		for _, frames := range c.sph.TailCopies() {
			copies++
			copiedBytes += copyPacketOverhead
			for _, f := range frames {
				copiedBytes += f.Frame.Length(protocol.Version1)
			}
		}
		c.ack(pn)
	}
	require.LessOrEqual(t, copiedBytes, tailCopyCredit+sentBytes/8, "the copies' packets stay within the budget")
	require.Less(t, copies, messages/4)
}
