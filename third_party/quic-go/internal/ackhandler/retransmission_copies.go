package ackhandler

// lastmile patch: a second copy of each retransmission a server sends.

import "github.com/quic-go/quic-go/internal/protocol"

// A retransmission is sent a round trip after its data was first sent at
// the earliest, and one that is lost again costs another round trip, or
// two. On the lab's lte-india profiles (350-425 ms, 3.5-7% random loss) a
// page of 160 packets loses about 5.5 of them, so about one page in five
// loses a retransmission too: the slowest kept HTTP/3 page loads were
// those (docs/results/quic-mobile.md). So a server sends the STREAM frames
// of each packet that retransmits once more, in a new packet, right after
// it: if the retransmission is lost its copy arrives. Like the tail copies
// (tail_copies.go) the copies are plain packets without a handler, the
// stream keeps tracking the retransmission, and they share the tail
// copies' budget: at 3.5% loss they add about 3.5% to the bytes sent.

// retransmissionCopy is the copy of one retransmitting packet.
type retransmissionCopy struct {
	pn     protocol.PacketNumber // the retransmitting packet
	frames []StreamFrame
	size   protocol.ByteCount // its packet's size, charged to the copies' budget
}

// maxQueuedRetransmissionCopies bounds the copies a window kept from
// going: by the time it opens, older retransmissions are more likely
// acknowledged or lost than not, and their copies would be dropped.
const maxQueuedRetransmissionCopies = 32

// queueRetransmissionCopy queues, for a server, a copy of the
// retransmitted STREAM frames of packet pn, within the copies' budget.
func (h *sentPacketHandler) queueRetransmissionCopy(pn protocol.PacketNumber, streamFrames []StreamFrame) {
	if h.perspective != protocol.PerspectiveServer || len(h.retransmissionCopies) >= maxQueuedRetransmissionCopies ||
		!carriesStreamFrames(streamFrames, true) {
		return
	}
	frames, size := copyStreamFrames(streamFrames, true)
	if size > h.copyBudget() {
		return
	}
	h.tailCopies.bytes += size
	h.retransmissionCopies = append(h.retransmissionCopies, retransmissionCopy{pn: pn, frames: frames, size: size})
}

// NextRetransmissionCopy returns the STREAM frames of the next copy to
// send (they fit one packet of the size of the packet copied, less header
// growth the packer checks), or nil. Copies of retransmissions already
// acknowledged or declared lost are dropped, their bytes given back to
// the budget: the copy would come too late.
func (h *sentPacketHandler) NextRetransmissionCopy() []StreamFrame {
	history := h.appDataPackets.history
	for len(h.retransmissionCopies) > 0 {
		c := h.retransmissionCopies[0]
		h.retransmissionCopies[0] = retransmissionCopy{}
		h.retransmissionCopies = h.retransmissionCopies[1:]
		if i, ok := history.getIndex(c.pn); ok && history.packets[i] != nil {
			return c.frames
		}
		h.tailCopies.bytes -= c.size
	}
	h.retransmissionCopies = nil
	return nil
}
