package bbr

import "time"

// The algorithm's constants, named after draft-ietf-ccwg-bbr (BBRv3), §2
// "Terminology", unless said otherwise.
const (
	// startupPacingGain is BBR.StartupPacingGain, 4·ln 2: the least gain
	// that doubles the sending rate each round (§5.3.1.1).
	startupPacingGain = 2.77
	// drainPacingGain is BBR.DrainPacingGain (§5.3.2).
	drainPacingGain = 0.5
	// defaultCwndGain is BBR.DefaultCwndGain.
	defaultCwndGain = 2.0
	// probeDownPacingGain, probeUpPacingGain and probeUpCwndGain are the
	// ProbeBW_DOWN and ProbeBW_UP gains (§5.3.3.1, §5.3.3.5).
	probeDownPacingGain = 0.90
	probeUpPacingGain   = 1.25
	probeUpCwndGain     = 2.25
	// pacingMarginPercent is BBR.PacingMarginPercent (§5.6.2).
	pacingMarginPercent = 1

	// lossThresh is BBR.LossThresh: the highest tolerated loss rate per
	// round trip while probing for bandwidth.
	lossThresh = 0.02
	// beta is BBR.Beta: the multiplicative decrease per lossy round.
	beta = 0.7
	// headroom is BBR.Headroom: the share of inflight_longterm left free
	// for cross traffic in ProbeBW_CRUISE.
	headroom = 0.15
	// minPipeCwndPackets is BBR.MinPipeCwnd in packets.
	minPipeCwndPackets = 4

	// fullBwGrowth and fullBwRounds define a bandwidth plateau: this many
	// non-app-limited rounds growing less than 25% (§5.3.1.2).
	fullBwGrowth = 1.25
	fullBwRounds = 3
	// startupFullLossCount is BBRStartupFullLossCnt: discontiguous lost
	// ranges in a round needed to leave Startup on loss (§5.3.1.3).
	startupFullLossCount = 6
	// drainMaxRounds bounds Drain when bw was overestimated (§5.3.2).
	drainMaxRounds = 3

	// extraAckedFilterLen is BBR.ExtraAckedFilterLen, in round trips.
	extraAckedFilterLen = 10

	// maxProbeUpRounds caps the doubling of inflight_longterm growth in
	// ProbeBW_UP (§5.3.3.9, RaiseInflightLongtermSlope).
	maxProbeUpRounds = 30
	// renoRoundsBound bounds the Reno-coexistence probing time scale, in
	// round trips (§5.3.3.9, IsRenoCoexistenceProbeTime).
	renoRoundsBound = 63
	// probeWaitBase and probeWaitJitter give T_bbr, 2-3 s (§5.3.3.8.2).
	probeWaitBase   = 2 * time.Second
	probeWaitJitter = time.Second

	// minRTTFilterLen is BBR.MinRTTFilterLen.
	minRTTFilterLen = 10 * time.Second
	// probeRTTCwndGain, probeRTTDuration and probeRTTInterval schedule
	// and shape ProbeRTT (§5.3.4).
	probeRTTCwndGain = 0.5
	probeRTTDuration = 200 * time.Millisecond
	probeRTTInterval = 5 * time.Second

	// sendQuantumTime and maxSendQuantum bound C.send_quantum: the pacing
	// rate times 1 ms, at most 64 KiB (a full GSO batch), at least two
	// packets (§5.6.3).
	sendQuantumTime = time.Millisecond
	maxSendQuantum  = 64 << 10

	// initialCwndPackets is the initial window in packets: quic-go's own
	// (protocol.InitialCongestionWindow) and Chromium QUIC's, so the first
	// flight of a connection is the same whichever controller the edge
	// runs; the draft leaves the initial window to the transport (§5.6.4.1)
	// and BBR paces it, so it does not leave as one burst.
	initialCwndPackets = 32
)

// The draft leaves the response to ECN open (§3.7: "MUST treat any CE
// marks as congestion"). These follow Linux's BBRv3: a DCTCP-style moving
// average of the CE-marked share of delivered packets per round, a cut of
// the short-term model by ecnFactor·alpha in each round with CE marks, and
// a bandwidth probe that ends as too high when more than ecnThresh of a
// round's packets came back CE-marked.
const (
	ecnThresh    = 0.5
	ecnAlphaGain = 1.0 / 16
	ecnFactor    = 1.0 / 3
)

// lastmile's own, for paths with random loss (see lossThreshold).
const (
	// filledPipeRTTs is how many min_rtt a flight sent from idle must keep
	// its ACKs coming after its first to have filled the pipe (rate.go's
	// rebase): more than one, so that jitter of up to half the RTT cannot
	// stretch the ACKs of a flight smaller than the BDP that far.
	filledPipeRTTs = 1.5
	// maxLossThresh caps the loss threshold however lossy the path.
	maxLossThresh = 0.15
	// randomLossMinPackets is the least a round must carry, in packets, to
	// measure the path's random loss rate.
	randomLossMinPackets = 8
	// queuedMinExcess is the least a round's fastest packet must exceed
	// min_rtt by to count as queued (lossRound.queued), whatever the
	// jitter estimate: an estimate below it changes no decision.
	queuedMinExcess = 2 * time.Millisecond
	// randomLossGain is the moving average's gain for the path's random
	// loss, once eight rounds have measured it.
	randomLossGain = 1.0 / 8
	// startupFullLossRounds is how many loss rounds in a row must meet
	// Startup's loss exit: QUIC's reading of the draft's full round trip
	// of recovery (checkStartupHighLoss).
	startupFullLossRounds = 2
)
