package ackhandler

// lastmile patch: an adaptive packet threshold for loss detection.

import "github.com/quic-go/quic-go/internal/protocol"

// RFC 9002's packet threshold (section 6.1.1) declares a packet lost once
// a packet sent 3 or more packet numbers after it is acknowledged. On a path
// that reorders more than that, every overtaken packet is declared lost:
// a needless retransmission and a loss signal to the congestion controller.
// Section 6.1.1 allows an implementation to adapt the threshold, as Linux
// TCP raises its reordering degree (tp->reordering) and QUICHE its
// reordering threshold when a retransmission turns out spurious. The rule
// here:
//
//   - The threshold starts at RFC 9002's 3 and never goes below it.
//   - When an ACK acknowledges a packet declared lost, the packet was
//     overtaken by at least the packets acknowledged before it (the largest
//     acknowledged before this ACK, less it). If that distance reached the
//     threshold, the packet threshold alone would have declared it lost
//     (whichever threshold actually did), so the threshold rises to the
//     distance plus one: the same reordering no longer counts as loss.
//     A smaller distance says nothing about the packet threshold (the time
//     threshold declared that packet, and widens itself).
//   - It is bounded by maxPacketThreshold (below).
//   - Once lossThresholdDecay loss detections in a row declared packets
//     lost without a spurious loss between them, the excess over 3 is
//     halved, so a path that stops reordering regains quick recovery
//     within a few dozen losses; a path migration resets it (reordering is
//     a property of the path).
//
// maxPacketThreshold: the time threshold declares a packet lost anyway
// (9/8 to 2x of the RTT, loss_time_threshold.go), so a higher packet
// threshold never delays a real loss beyond that; what it costs is the
// early declaration packet counting gives on a path that does not reorder
// as far as the threshold has risen. 20 packets are about 19 ms at
// 10 Mbit/s and 190 ms at 1 Mbit/s (1200-byte packets), within one RTT of
// the slow mobile paths it is for; paths reordering further than 20
// packets are left to the time threshold.
const (
	minPacketThreshold = packetThreshold // RFC 9002's 3
	maxPacketThreshold = 20
)

// lossPacketThreshold is the adaptive packet threshold of one connection.
// The zero value is RFC 9002's 3.
type lossPacketThreshold struct {
	threshold   protocol.PacketNumber // 0 means minPacketThreshold
	cleanLosses int                   // loss detections since the last spurious loss or decay
}

func (r *lossPacketThreshold) current() protocol.PacketNumber {
	return max(r.threshold, minPacketThreshold)
}

// onSpuriousLoss takes the reordering distance of a packet declared lost and
// then acknowledged (see above), and reports whether the threshold rose.
func (r *lossPacketThreshold) onSpuriousLoss(distance protocol.PacketNumber) bool {
	r.cleanLosses = 0
	if distance < r.current() || r.current() == maxPacketThreshold {
		return false
	}
	r.threshold = min(distance+1, maxPacketThreshold)
	return true
}

// onPacketsLost counts a loss detection that declared packets lost, and
// halves the excess over 3 after lossThresholdDecay of them in a row
// without a spurious loss.
func (r *lossPacketThreshold) onPacketsLost() {
	if r.current() == minPacketThreshold {
		return
	}
	r.cleanLosses++
	if r.cleanLosses >= lossThresholdDecay {
		r.cleanLosses = 0
		r.threshold = minPacketThreshold + (r.current()-minPacketThreshold)/2
	}
}
