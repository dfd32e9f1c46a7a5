package ackhandler

// lastmile patch: the adaptive packet threshold of loss detection.

import (
	"slices"
	"testing"
	"time"

	"github.com/quic-go/quic-go/internal/monotime"
	"github.com/quic-go/quic-go/internal/protocol"
	"github.com/quic-go/quic-go/internal/utils"
	"github.com/quic-go/quic-go/internal/wire"

	"github.com/stretchr/testify/require"
)

func TestLossPacketThresholdStartsAtRFC9002(t *testing.T) {
	var th lossPacketThreshold
	require.Equal(t, protocol.PacketNumber(3), th.current())
	for range 100 {
		th.onPacketsLost()
	}
	require.Equal(t, protocol.PacketNumber(3), th.current())
	// A spurious loss overtaken by fewer packets than the threshold was
	// declared by the time threshold: no change.
	require.False(t, th.onSpuriousLoss(2))
	require.False(t, th.onSpuriousLoss(0))
	require.Equal(t, protocol.PacketNumber(3), th.current())
}

func TestLossPacketThresholdRisesToReorderingDistance(t *testing.T) {
	var th lossPacketThreshold
	require.True(t, th.onSpuriousLoss(3))
	require.Equal(t, protocol.PacketNumber(4), th.current())
	require.True(t, th.onSpuriousLoss(9))
	require.Equal(t, protocol.PacketNumber(10), th.current())
	// Less reordering than already allowed for does not lower it.
	require.False(t, th.onSpuriousLoss(5))
	require.Equal(t, protocol.PacketNumber(10), th.current())
	// Bounded.
	require.True(t, th.onSpuriousLoss(1000))
	require.Equal(t, protocol.PacketNumber(maxPacketThreshold), th.current())
	require.False(t, th.onSpuriousLoss(1000))
	require.Equal(t, protocol.PacketNumber(maxPacketThreshold), th.current())
}

func TestLossPacketThresholdDecaysAfterCleanLosses(t *testing.T) {
	var th lossPacketThreshold
	th.onSpuriousLoss(100) // 20
	for range lossThresholdDecay - 1 {
		th.onPacketsLost()
	}
	require.Equal(t, protocol.PacketNumber(20), th.current())
	// A spurious loss, even one the threshold already covers, starts the
	// count again.
	th.onSpuriousLoss(1)
	for range lossThresholdDecay - 1 {
		th.onPacketsLost()
	}
	require.Equal(t, protocol.PacketNumber(20), th.current())
	th.onPacketsLost()
	require.Equal(t, protocol.PacketNumber(11), th.current()) // 3 + 17/2
	seen := []protocol.PacketNumber{th.current()}
	for range 10 * lossThresholdDecay {
		th.onPacketsLost()
		if c := th.current(); c != seen[len(seen)-1] {
			seen = append(seen, c)
		}
	}
	require.Equal(t, []protocol.PacketNumber{11, 7, 5, 4, 3}, seen)
}

// A packet overtaken by four others is declared lost on RFC 9002's packet
// threshold, then acknowledged: the threshold rises to 5, so the next packet
// overtaken by four is left to the time threshold, and one overtaken by
// five is still declared lost at once.
func TestSentPacketHandlerRaisesPacketThresholdOnSpuriousLoss(t *testing.T) {
	var packets packetTracker
	sph := NewSentPacketHandler(0, 1200, utils.NewRTTStats(), &utils.ConnectionStats{}, true, false, nil, protocol.PerspectiveServer, nil, utils.DefaultLogger)
	sendN := func(ti monotime.Time, n int) []protocol.PacketNumber {
		var pns []protocol.PacketNumber
		for range n {
			pn := sph.PopPacketNumber(protocol.Encryption1RTT)
			sph.SentPacket(ti, pn, protocol.InvalidPacketNumber, nil, []Frame{packets.NewPingFrame(pn)}, protocol.Encryption1RTT, protocol.ECNNon, 1000, false, false)
			pns = append(pns, pn)
		}
		return pns
	}
	ack := func(ti monotime.Time, pns ...protocol.PacketNumber) {
		// ackRanges sorts its argument: keep p and q in sending order.
		_, err := sph.ReceivedAck(&wire.AckFrame{AckRanges: ackRanges(slices.Clone(pns)...)}, protocol.Encryption1RTT, ti)
		require.NoError(t, err)
	}

	start := monotime.Now()
	p := sendN(start, 5)
	ack(start.Add(100*time.Millisecond), p[1:]...)
	require.Equal(t, []protocol.PacketNumber{p[0]}, packets.Lost, "overtaken by 4: lost on RFC 9002's threshold")
	ack(start.Add(101*time.Millisecond), p...) // p[0] came after all
	require.Equal(t, protocol.PacketNumber(5), sph.(*sentPacketHandler).packetThreshold.current())

	packets.Reset()
	q := sendN(start.Add(110*time.Millisecond), 6)
	ack(start.Add(210*time.Millisecond), slices.Concat(p, q[1:5])...)
	require.Empty(t, packets.Lost, "overtaken by 4: reordering the path has shown")
	// The time threshold still declares it, 5/4 of the RTT after it was
	// sent (widened by the spurious loss's 101 ms).
	require.Equal(t, start.Add(110*time.Millisecond+125*time.Millisecond), sph.GetLossDetectionTimeout())
	ack(start.Add(212*time.Millisecond), slices.Concat(p, q[1:])...)
	require.Equal(t, []protocol.PacketNumber{q[0]}, packets.Lost, "overtaken by 5: lost at once")
}

// The adaptive thresholds belong to a path: a migration resets them.
func TestSentPacketHandlerResetsLossThresholdsOnMigration(t *testing.T) {
	sph := NewSentPacketHandler(0, 1200, utils.NewRTTStats(), &utils.ConnectionStats{}, true, false, nil, protocol.PerspectiveServer, nil, utils.DefaultLogger).(*sentPacketHandler)
	sph.packetThreshold.onSpuriousLoss(10)
	sph.timeThreshold.onSpuriousLoss(time.Second, 100*time.Millisecond)
	sph.MigratedPath(monotime.Now(), 1200)
	require.Equal(t, protocol.PacketNumber(3), sph.packetThreshold.current())
	require.Equal(t, 9*time.Millisecond, sph.timeThreshold.lossDelay(8*time.Millisecond))
}
