package ackhandler

// lastmile patch: the adaptive time threshold of loss detection.

import (
	"testing"
	"time"

	"github.com/quic-go/quic-go/internal/congestion"
	"github.com/quic-go/quic-go/internal/monotime"
	"github.com/quic-go/quic-go/internal/protocol"
	"github.com/quic-go/quic-go/internal/utils"
	"github.com/quic-go/quic-go/internal/wire"

	"github.com/stretchr/testify/require"
)

func TestLossTimeThresholdStartsAtRFC9002(t *testing.T) {
	var th lossTimeThreshold
	require.Equal(t, 9*time.Millisecond, th.lossDelay(8*time.Millisecond))
	// Loss detections without spurious losses keep it there.
	for range 100 {
		th.onPacketsLost()
	}
	require.Equal(t, 9*time.Millisecond, th.lossDelay(8*time.Millisecond))
}

func TestLossTimeThresholdWidensOnSpuriousLoss(t *testing.T) {
	var th lossTimeThreshold
	// Acknowledged just past the threshold: one eighth more.
	th.onSpuriousLoss(115*time.Millisecond, 100*time.Millisecond)
	require.Equal(t, 125*time.Millisecond, th.lossDelay(100*time.Millisecond))
	th.onSpuriousLoss(115*time.Millisecond, 100*time.Millisecond)
	require.Equal(t, 137500*time.Microsecond, th.lossDelay(100*time.Millisecond))
	// Acknowledged 1.6 RTTs after it was sent: at once past that (13/8).
	th.onSpuriousLoss(160*time.Millisecond, 100*time.Millisecond)
	require.Equal(t, 162500*time.Microsecond, th.lossDelay(100*time.Millisecond))
	// Never beyond 2x, however late the acknowledgement.
	th.onSpuriousLoss(5*time.Second, 100*time.Millisecond)
	require.Equal(t, 200*time.Millisecond, th.lossDelay(100*time.Millisecond))
	th.onSpuriousLoss(5*time.Second, 0)
	require.Equal(t, 200*time.Millisecond, th.lossDelay(100*time.Millisecond))
}

func TestLossTimeThresholdDecaysAfterCleanLosses(t *testing.T) {
	var th lossTimeThreshold
	th.onSpuriousLoss(time.Second, 100*time.Millisecond) // 2x
	for range lossThresholdDecay - 1 {
		th.onPacketsLost()
	}
	require.Equal(t, 200*time.Millisecond, th.lossDelay(100*time.Millisecond))
	// A spurious loss starts the count again.
	th.onSpuriousLoss(0, 100*time.Millisecond)
	for range lossThresholdDecay - 1 {
		th.onPacketsLost()
	}
	require.Equal(t, 200*time.Millisecond, th.lossDelay(100*time.Millisecond))
	th.onPacketsLost()
	require.Equal(t, 187500*time.Microsecond, th.lossDelay(100*time.Millisecond))
	// Back to 9/8 after 7 more runs of clean losses, and no further.
	for range 10 * lossThresholdDecay {
		th.onPacketsLost()
	}
	require.Equal(t, 112500*time.Microsecond, th.lossDelay(100*time.Millisecond))
}

// spuriousLossRecorder is quic-go's sender through the hook, recording the
// spurious losses it is told of.
type spuriousLossRecorder struct {
	congestion.HookController
	spurious []congestion.HookPacket
}

func (r *spuriousLossRecorder) OnSpuriousLoss(_, pn, sentTime int64) {
	r.spurious = append(r.spurious, congestion.HookPacket{Number: pn, SentTime: sentTime})
}

// A packet declared lost on the time threshold and then acknowledged widens
// the threshold, so the next packet as late is not declared lost, and the
// controller hears of the spurious loss.
func TestSentPacketHandlerWidensTimeThresholdOnSpuriousLoss(t *testing.T) {
	rec := &spuriousLossRecorder{}
	var packets packetTracker
	sph := NewSentPacketHandlerWithCongestion(
		func(_ int64, _ func() int64, builtin func(bool) congestion.HookController) congestion.HookController {
			rec.HookController = builtin(true)
			return rec
		},
		0, 1200, utils.NewRTTStats(), &utils.ConnectionStats{}, true, false, nil,
		protocol.PerspectiveServer, nil, utils.DefaultLogger,
	)
	send := func(ti monotime.Time) protocol.PacketNumber {
		pn := sph.PopPacketNumber(protocol.Encryption1RTT)
		sph.SentPacket(ti, pn, protocol.InvalidPacketNumber, nil, []Frame{packets.NewPingFrame(pn)}, protocol.Encryption1RTT, protocol.ECNNon, 1000, false, false)
		return pn
	}
	ack := func(ti monotime.Time, pns ...protocol.PacketNumber) {
		_, err := sph.ReceivedAck(&wire.AckFrame{AckRanges: ackRanges(pns...)}, protocol.Encryption1RTT, ti)
		require.NoError(t, err)
	}

	start := monotime.Now()
	p0 := send(start)
	p1 := send(start.Add(30 * time.Millisecond))
	p2 := send(start.Add(40 * time.Millisecond))
	// An RTT sample of 100 ms: p0, 130 ms old, is past 9/8 of it.
	ack(start.Add(130*time.Millisecond), p1)
	require.Equal(t, []protocol.PacketNumber{p0}, packets.Lost)
	// p0 arrives after all, 140 ms after it was sent. (quic-go looks for
	// spurious losses in ACK frames that acknowledge a new packet too.)
	ack(start.Add(140*time.Millisecond), p0, p1, p2)
	require.Equal(t, []congestion.HookPacket{{Number: int64(p0), SentTime: int64(start)}}, rec.spurious)

	// The threshold now covers 140 ms at this RTT: 12/8 of 100 ms.
	packets.Reset()
	p3 := send(start.Add(200 * time.Millisecond))
	p4 := send(start.Add(230 * time.Millisecond))
	ack(start.Add(330*time.Millisecond), p0, p1, p2, p4)
	require.Empty(t, packets.Lost, "p3, 130 ms old, declared lost")
	require.Equal(t, start.Add(350*time.Millisecond), sph.GetLossDetectionTimeout())
	require.NoError(t, sph.OnLossDetectionTimeout(start.Add(350*time.Millisecond)))
	require.Equal(t, []protocol.PacketNumber{p3}, packets.Lost)
}
