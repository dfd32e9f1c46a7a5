package ackhandler

// lastmile patch: the congestion-controller hook.

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

// quic-go's own sender chosen through the hook behaves exactly as without
// it: same window and send mode after every ACK of a lossy transfer, and the
// same loss statistics.
func TestHookBuiltinSenderMatchesUnhooked(t *testing.T) {
	for _, reno := range []bool{true, false} {
		newHandler := func(f congestion.Factory) (*sentPacketHandler, *utils.ConnectionStats) {
			stats := &utils.ConnectionStats{}
			h := NewSentPacketHandlerWithCongestion(f, 0, 1200, utils.NewRTTStats(), stats, false, false, nil, protocol.PerspectiveClient, nil, utils.DefaultLogger)
			return h.(*sentPacketHandler), stats
		}
		plain, plainStats := newHandler(nil)
		if !reno {
			plain.congestion = congestion.NewCubicSender(congestion.DefaultClock{}, plain.rttStats, plainStats, 1200, false, nil)
		}
		var consulted int
		hooked, hookedStats := newHandler(func(_ int64, _ func() int64, builtin func(bool) congestion.HookController) congestion.HookController {
			consulted++
			return builtin(reno)
		})
		require.Equal(t, 1, consulted)
		require.NotNil(t, hooked.hook)

		// Packet numbers differ (quic-go skips random ones), the counts
		// may not.
		handlers := []*sentPacketHandler{plain, hooked}
		now := monotime.Now()
		var sent int
		for round := range 40 {
			pns := make([][]protocol.PacketNumber, 2)
			for j, h := range handlers {
				for h.SendMode(now) == SendAny && len(pns[j]) < 400 {
					pn := h.PopPacketNumber(protocol.Encryption1RTT)
					h.SentPacket(now, pn, protocol.InvalidPacketNumber, nil, []Frame{{Frame: &wire.PingFrame{}}}, protocol.Encryption1RTT, protocol.ECNNon, 1200, false, false)
					pns[j] = append(pns[j], pn)
				}
			}
			require.Len(t, pns[1], len(pns[0]), "round %d: packets sent", round)
			// One RTT later, everything but every 25th packet is acked, in
			// one ACK frame per 10 packets.
			now = now.Add(50 * time.Millisecond)
			acked := make([][]protocol.PacketNumber, 2)
			for i := range pns[0] {
				if (sent+i)%25 == 24 {
					continue
				}
				for j := range handlers {
					acked[j] = append(acked[j], pns[j][i])
				}
				if i%10 != 9 && i != len(pns[0])-1 {
					continue
				}
				for j, h := range handlers {
					_, err := h.ReceivedAck(&wire.AckFrame{AckRanges: ackRanges(acked[j]...)}, protocol.Encryption1RTT, now)
					require.NoError(t, err)
				}
				require.Equal(t, plain.congestion.GetCongestionWindow(), hooked.congestion.GetCongestionWindow(), "round %d", round)
				require.Equal(t, plain.congestion.InRecovery(), hooked.congestion.InRecovery())
				require.Equal(t, plain.SendMode(now), hooked.SendMode(now))
			}
			sent += len(pns[0])
		}
		require.NotZero(t, plainStats.PacketsLost.Load())
		require.Equal(t, plainStats.PacketsLost.Load(), hookedStats.PacketsLost.Load())
		require.Equal(t, plainStats.BytesLost.Load(), hookedStats.BytesLost.Load())
	}
}
