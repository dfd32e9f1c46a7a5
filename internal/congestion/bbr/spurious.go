package bbr

import "github.com/lastmile-edge/lastmile/internal/congestion"

// Spurious-loss undo (§5.5.11). The transport tells the controller when a
// packet it declared lost is acknowledged after all (lastmile's quic-go
// patch does, and widens its loss time threshold at the same time). On the
// Wi-Fi profiles RFC 9002's time threshold declared 5.9 packets per kept
// page lost that were still in flight (docs/results/quic-mobile.md); each
// counts against the loss threshold, can end Startup or a bandwidth probe
// and lower the model's bounds. The draft's undo puts back the bounds and
// the state saved when the loss round began.

var _ congestion.SpuriousLossController = (*BBR)(nil)

// saveStateUponLoss is SaveStateUponLoss: at the first loss of a loss
// round (or a retransmission timeout), the cwnd and the model a spurious
// loss would restore.
func (b *BBR) saveStateUponLoss() {
	b.saveCwnd()
	b.undoState = b.state
	b.undoFullBwReached = b.fullBwReached
	b.undoBwShortterm = b.bwShortterm
	b.undoInflightShortterm = b.inflightShortterm
	b.undoInflightLongterm = b.inflightLongterm
}

// OnSpuriousLoss is HandleSpuriousLossDetection: the loss round's losses
// no longer count, the bounds go back up to where they were before it, and
// a Startup or bandwidth probe the loss ended resumes. The draft leaves
// BBR.full_bw_reached alone; here it is restored too when the undo resumes
// Startup, since a loss-ended Startup (checkStartupHighLoss) set it, and
// Startup would otherwise end again on the next ACK. Loss recovery goes on:
// other losses of the same episode may be real.
func (b *BBR) OnSpuriousLoss(_ congestion.Time, _ int64, _ congestion.Time) {
	b.isLossInRound = false
	b.resetFullBw()
	b.bwShortterm = max(b.bwShortterm, b.undoBwShortterm)
	b.inflightShortterm = max(b.inflightShortterm, b.undoInflightShortterm)
	b.inflightLongterm = max(b.inflightLongterm, b.undoInflightLongterm)
	if b.state != probeRTT && b.state != b.undoState {
		switch b.undoState {
		case startup:
			b.fullBwReached = b.undoFullBwReached
			b.enterStartup()
		case probeBWUp:
			b.startProbeBWUp()
		}
	}
	b.updateControlParameters()
}
