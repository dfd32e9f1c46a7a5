package ackhandler

// lastmile patch: an adaptive time threshold for loss detection.

import "time"

// RFC 9002's time threshold (section 6.1.2) is 9/8 of max(smoothed RTT,
// latest RTT). On a path whose RTT jitters by a good part of itself (Wi-Fi:
// 10 ms RTT, 5 ms of jitter, plus the peer's ACK delay), packets still in
// flight pass that threshold and are declared lost: spurious losses, each a
// needless retransmission and a loss signal to the congestion controller.
// Section 6.1.2 allows an implementation to adapt the threshold, as Linux
// RACK adapts its reordering window for TCP. The rule here:
//
//   - The threshold is kept in eighths of max(smoothed RTT, latest RTT),
//     from RFC 9002's 9/8 up to 2x (at 2x a packet waits a whole extra RTT
//     before it counts as lost: more only delays the recovery of real
//     losses; RACK stops at the smoothed RTT too).
//   - An ACK that acknowledges packets declared lost raises it by one eighth,
//     or at once to what would have kept the most delayed of them from being
//     declared lost, if that is more.
//   - Once lossThresholdDecay loss detections in a row declared packets
//     lost without a spurious loss between them, it falls back by one
//     eighth, so a path that stops jittering regains quick recovery (RACK
//     resets after 16 recoveries without a spurious retransmission).
//
// The packet threshold (section 6.1.1) adapts on its own evidence, packets
// overtaken by others (loss_packet_threshold.go); the two share the decay
// count lossThresholdDecay.
const (
	minTimeThresholdEighths = 9  // RFC 9002's 9/8
	maxTimeThresholdEighths = 16 // 2x
	// lossThresholdDecay is how many loss detections in a row without a
	// spurious loss lower the threshold by one eighth (and the packet
	// threshold's excess over 3 by half).
	lossThresholdDecay = 16
)

// lossTimeThreshold is the adaptive time threshold of one connection.
// The zero value is RFC 9002's 9/8.
type lossTimeThreshold struct {
	eighths     int // above minTimeThresholdEighths; 0 means the minimum
	cleanLosses int // loss detections since the last spurious loss or decay
}

func (r *lossTimeThreshold) current() int { return max(r.eighths, minTimeThresholdEighths) }

// lossDelay is how long after its send time a packet, with a later one
// acknowledged, counts as lost.
func (r *lossTimeThreshold) lossDelay(maxRTT time.Duration) time.Duration {
	return maxRTT * time.Duration(r.current()) / 8
}

// onSpuriousLoss widens the threshold after an ACK acknowledged packets
// declared lost; delay is the longest time from send to acknowledgement
// among them (less the ACK delay), maxRTT the RTT the threshold multiplies.
func (r *lossTimeThreshold) onSpuriousLoss(delay, maxRTT time.Duration) {
	r.cleanLosses = 0
	next := r.current() + 1
	if maxRTT > 0 {
		// The least number of eighths for which lossDelay(maxRTT) > delay.
		next = max(next, int(8*delay/maxRTT)+1)
	}
	r.eighths = min(next, maxTimeThresholdEighths)
}

// onPacketsLost counts a loss detection that declared packets lost, and
// narrows the threshold after lossThresholdDecay of them in a row
// without a spurious loss.
func (r *lossTimeThreshold) onPacketsLost() {
	if r.current() == minTimeThresholdEighths {
		return
	}
	r.cleanLosses++
	if r.cleanLosses >= lossThresholdDecay {
		r.cleanLosses = 0
		r.eighths = r.current() - 1
	}
}
