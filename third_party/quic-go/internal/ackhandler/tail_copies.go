package ackhandler

// lastmile patch: a second copy of a server's small final flights.

import (
	"slices"

	"github.com/quic-go/quic-go/internal/protocol"
	"github.com/quic-go/quic-go/internal/wire"
)

// Loss recovery repairs a lost packet one round trip after it was sent at
// the earliest: only a later packet's acknowledgement reveals the loss. For
// a packet in the middle of a large flight that is all it costs. For a
// flight of a few packets with nothing sent after them (an HTTP response
// of a page's HTML, whose subresource requests wait for it) the packet
// threshold cannot fire at all: the loss waits for the time threshold
// (9/8 of an RTT after the acknowledgement of a sibling) or a probe
// timeout (about 2 RTTs on a jittery path), and everything the peer does
// next waits with it. On a 350 ms path losing 3.5% of packets that was the
// slowest tenth of kept HTTP/3 page loads (docs/results/quic-mobile.md).
//
// So when a server runs out of data after a new flight of at most
// tailCopyMaxPackets packets (with not much else in flight), it sends the
// STREAM frames of that flight once more, in new packets, right away: the
// pacer would hold a burst of a few packets back until the next send. If
// an original is lost its copy arrives a moment later instead of a round
// trip. The copies are plain packets for loss detection and the congestion
// controller (they are in flight and are acknowledged or lost like any
// other); their frames have no handler, so the streams keep tracking the
// originals: an original declared lost is still retransmitted, one
// needless packet in the rare case its copy arrived, and a lost copy costs
// nothing.
//
// The cost is bounded: only small flights, only once per packet, and in
// all at most tailCopyCredit bytes plus an eighth of what the connection
// sent, counted as packets on the wire (copyPacketOverhead). A page load
// of 200 KB pays for its HTML's three packets (2%); a connection that only
// ever sends small messages pays at most 12.5% more bytes. Clients are
// left alone: the peer a server copies for is the one whose next request
// waits.
const (
	// tailCopyMaxPackets is the packet threshold's 3: a new flight of at
	// most that many packets has too few after it for the packet threshold
	// to find any of its losses.
	tailCopyMaxPackets = 3
	// tailCopyMaxInFlight bounds what else may be in flight: the previous
	// response's last packets often are (the peer asks again as soon as it
	// has them, before their acknowledgement arrives), but a few packets
	// sent inside a large transfer are repaired by the packets after them.
	tailCopyMaxInFlight = 16
	// tailCopyCredit lets a new connection copy its first response: the
	// handshake alone has sent too little for the eighth.
	tailCopyCredit protocol.ByteCount = 4 * 1200
	// copyPacketOverhead bounds what a copy's packet adds to its frames:
	// a short header with the longest connection ID and packet number,
	// and the AEAD tag. Charging only the data let copies of tiny
	// messages (a WebTransport session's, an echo's) double the packets a
	// connection sent while "copying" an eighth of its data.
	copyPacketOverhead protocol.ByteCount = 1 + protocol.MaxConnIDLen + 4 + 16
)

// tailCopies is a connection's record of the packets it copied.
type tailCopies struct {
	next protocol.PacketNumber // packets below it were considered for a tail copy
	// bytes is the size of the packets copied so far (copyStreamFrames)
	// by both kinds of copies, tail and retransmission
	// (retransmission_copies.go): the budget of copyBudget is theirs
	// together.
	bytes protocol.ByteCount
}

// TailCopies returns, when the server ran out of data after a small new
// flight, copies of the STREAM frames of each packet of that flight, one
// slice per packet (each fits one packet of the same size, less header
// growth the packer checks). Otherwise nil. Either way the packets sent so
// far are never considered again.
func (h *sentPacketHandler) TailCopies() [][]StreamFrame {
	if h.perspective != protocol.PerspectiveServer {
		return nil
	}
	history := h.appDataPackets.history
	next := h.tailCopies.next
	h.tailCopies.next = max(next, h.appDataPackets.largestSent+1)
	if history.NumOutstanding() > tailCopyMaxInFlight {
		return nil
	}
	var fresh []*packet
	for pn, p := range history.Packets() {
		// A packet whose frames have no handler is a copy itself; one
		// that only retransmits was copied when it was sent.
		if pn < next || !p.Outstanding() || !carriesStreamFrames(p.StreamFrames, false) {
			continue
		}
		if len(fresh) == tailCopyMaxPackets {
			return nil // the packet threshold repairs this flight
		}
		fresh = append(fresh, p)
	}
	budget := h.copyBudget()
	var copies [][]StreamFrame
	for _, p := range fresh {
		frames, size := copyStreamFrames(p.StreamFrames, false)
		if size > budget {
			break
		}
		budget -= size
		h.tailCopies.bytes += size
		copies = append(copies, frames)
	}
	return copies
}

// copyBudget is the bytes the copies' packets may still take:
// tailCopyCredit plus an eighth of what the connection sent, less what was
// copied.
func (h *sentPacketHandler) copyBudget() protocol.ByteCount {
	return tailCopyCredit + h.bytesSent/8 - h.tailCopies.bytes
}

// carriesStreamFrames reports whether frames has a stream's frame (one with
// a handler, not a copy) that is a retransmission or, if not
// retransmissions, new data.
func carriesStreamFrames(frames []StreamFrame, retransmissions bool) bool {
	for _, f := range frames {
		if f.Handler != nil && f.Retransmission == retransmissions {
			return true
		}
	}
	return false
}

// CopyNotSent gives the charge of a copy TailCopies or
// NextRetransmissionCopy returned back to the budget: the connection did
// not send it (its stream was reset, or the window closed first).
func (h *sentPacketHandler) CopyNotSent(frames []StreamFrame) {
	h.tailCopies.bytes -= copiesPacketSize(frames)
}

// copiesPacketSize is the size of a packet of frames at most: what a
// copy is charged.
func copiesPacketSize(frames []StreamFrame) protocol.ByteCount {
	size := copyPacketOverhead
	for _, f := range frames {
		size += f.Frame.Length(protocol.Version1)
	}
	return size
}

// copyStreamFrames copies what carriesStreamFrames looks for, data
// included (the original's buffer goes back to a pool when it is
// acknowledged), and returns the size of a packet of the copies at most.
func copyStreamFrames(frames []StreamFrame, retransmissions bool) ([]StreamFrame, protocol.ByteCount) {
	copies := make([]StreamFrame, 0, len(frames))
	for _, f := range frames {
		if f.Handler == nil || f.Retransmission != retransmissions {
			continue
		}
		copies = append(copies, StreamFrame{Frame: &wire.StreamFrame{
			StreamID:       f.Frame.StreamID,
			Offset:         f.Frame.Offset,
			Data:           slices.Clone(f.Frame.Data),
			Fin:            f.Frame.Fin,
			DataLenPresent: true,
		}})
	}
	return copies, copiesPacketSize(copies)
}
