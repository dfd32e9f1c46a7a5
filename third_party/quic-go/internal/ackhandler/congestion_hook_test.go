package ackhandler

// lastmile patch: the congestion-controller hook.

import (
	"fmt"
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
// it: same window and send mode after every ACK of a lossy transfer, with
// and without ECN-CE marks, and the same loss statistics (except that a CE
// mark no longer counts as a lost packet).
func TestHookBuiltinSenderMatchesUnhooked(t *testing.T) {
	for _, reno := range []bool{true, false} {
		for _, ecn := range []bool{false, true} {
			t.Run(fmt.Sprintf("reno=%v,ecn=%v", reno, ecn), func(t *testing.T) {
				testHookBuiltinSenderMatchesUnhooked(t, reno, ecn)
			})
		}
	}
}

func testHookBuiltinSenderMatchesUnhooked(t *testing.T, reno, ecn bool) {
	newHandler := func(f congestion.Factory) (*sentPacketHandler, *utils.ConnectionStats) {
		stats := &utils.ConnectionStats{}
		h := NewSentPacketHandlerWithCongestion(f, 0, 1200, utils.NewRTTStats(), stats, false, ecn, nil, protocol.PerspectiveClient, nil, utils.DefaultLogger)
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

	// Packet numbers differ (quic-go skips random ones), the counts may
	// not. The peer reports cumulative ECN counts; every third ACK frame
	// reports one more CE mark.
	handlers := []*sentPacketHandler{plain, hooked}
	marks := []map[protocol.PacketNumber]protocol.ECN{{}, {}}
	var ect0, ce [2]uint64
	now := monotime.Now()
	var sent, frames int
	for round := range 40 {
		pns := make([][]protocol.PacketNumber, 2)
		for j, h := range handlers {
			for h.SendMode(now) == SendAny && len(pns[j]) < 400 {
				pn := h.PopPacketNumber(protocol.Encryption1RTT)
				mark := h.ECNMode(true)
				marks[j][pn] = mark
				h.SentPacket(now, pn, protocol.InvalidPacketNumber, nil, []Frame{{Frame: &wire.PingFrame{}}}, protocol.Encryption1RTT, mark, 1200, false, false)
				pns[j] = append(pns[j], pn)
			}
		}
		require.Len(t, pns[1], len(pns[0]), "round %d: packets sent", round)
		// One RTT later, everything but every 25th packet is acked, in one
		// ACK frame per 10 packets.
		now = now.Add(50 * time.Millisecond)
		acked := make([][]protocol.PacketNumber, 2)
		var newECT0 [2]uint64
		for i := range pns[0] {
			if (sent+i)%25 == 24 {
				continue
			}
			for j := range handlers {
				acked[j] = append(acked[j], pns[j][i])
				if marks[j][pns[j][i]] == protocol.ECT0 {
					newECT0[j]++
				}
			}
			if i%10 != 9 && i != len(pns[0])-1 {
				continue
			}
			frames++
			for j, h := range handlers {
				if ecn && frames%3 == 0 && newECT0[j] > 0 {
					ce[j]++
					newECT0[j]--
				}
				ect0[j] += newECT0[j]
				newECT0[j] = 0
				frame := &wire.AckFrame{AckRanges: ackRanges(acked[j]...), ECT0: ect0[j], ECNCE: ce[j]}
				_, err := h.ReceivedAck(frame, protocol.Encryption1RTT, now)
				require.NoError(t, err)
			}
			require.Equal(t, plain.congestion.GetCongestionWindow(), hooked.congestion.GetCongestionWindow(), "round %d", round)
			require.Equal(t, plain.congestion.InRecovery(), hooked.congestion.InRecovery())
			require.Equal(t, plain.SendMode(now), hooked.SendMode(now))
		}
		sent += len(pns[0])
	}
	require.NotZero(t, hookedStats.PacketsLost.Load())
	require.Equal(t, plainStats.BytesLost.Load(), hookedStats.BytesLost.Load())
	if !ecn {
		require.Equal(t, plainStats.PacketsLost.Load(), hookedStats.PacketsLost.Load())
		return
	}
	// quic-go's sender counts each ECN congestion event as a lost packet.
	require.Greater(t, plainStats.PacketsLost.Load(), hookedStats.PacketsLost.Load(), "no ECN congestion event")
}
