// Package quichook installs the edge's congestion controllers into quic-go
// connections and observes them, for metrics and the admin view.
//
// lastmile's patch of quic-go (third_party/quic-go) looks up a factory in
// each new connection's context under ContextKey. The factory and the
// controller it returns are spelled below with unnamed types made of
// standard-library types only, identical to the patch's aliases
// (internal/congestion/hook.go there): Go compares such types by structure,
// so this package needs no symbol of the patched tree and builds against
// upstream quic-go too, where nothing looks the factory up.
package quichook

import "time"

// ContextKey is the context key the patched quic-go reads the factory from.
const ContextKey = "github.com/quic-go/quic-go/congestion.Factory"

// The types below must stay identical to the patch's HookPacket,
// HookAckEvent, HookInfo, HookController and Factory; TestWireTypesMatch
// checks that the patched quic-go finds the factory.
type (
	wirePacket = struct{ Number, Bytes, SentTime int64 }

	wireAckEvent = struct {
		Now                            int64
		PriorInFlight, BytesInFlight   int64
		LargestAcked                   int64
		RTTSampled                     bool
		Acked, Lost                    []wirePacket
		ECNCE                          int64
		LatestRTT, SmoothedRTT, MinRTT time.Duration
	}

	wireInfo = struct {
		CongestionWindow, PacingRate, BottleneckBandwidth int64
		MinRTT                                            time.Duration
		State                                             string
		InSlowStart, InRecovery                           bool
	}

	wireController = interface {
		OnPacketSent(now int64, p wirePacket, bytesInFlight int64, isRetransmittable bool)
		OnAck(wireAckEvent)
		OnRetransmissionTimeout(packetsRetransmitted bool)
		OnAppLimited(now, bytesInFlight int64)
		CanSend(bytesInFlight int64) bool
		HasPacingBudget(now int64) bool
		TimeUntilSend(bytesInFlight int64) int64
		SetMaxDatagramSize(bytes int64)
		Info() wireInfo
	}

	// wireSpuriousLossController is the patch's optional
	// HookSpuriousLossController.
	wireSpuriousLossController = interface {
		OnSpuriousLoss(now, packetNumber, sentTime int64)
	}

	wireFactory = func(initialMaxDatagramSize int64, now func() int64, builtin func(reno bool) wireController) wireController
)

var _ wireSpuriousLossController = (*adapter)(nil)
