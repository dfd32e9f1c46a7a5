package bbr

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// state is BBR.state (§5.1).
type state uint8

const (
	startup state = iota
	drain
	probeBWDown
	probeBWCruise
	probeBWRefill
	probeBWUp
	probeRTT
)

var stateNames = [...]string{
	startup:       "startup",
	drain:         "drain",
	probeBWDown:   "probe_bw_down",
	probeBWCruise: "probe_bw_cruise",
	probeBWRefill: "probe_bw_refill",
	probeBWUp:     "probe_bw_up",
	probeRTT:      "probe_rtt",
}

func (s state) String() string { return stateNames[s] }

// ackPhase is BBR.ack_phase (§2.14): what the ACKs now arriving say about
// bandwidth probing.
type ackPhase uint8

const (
	acksInit ackPhase = iota
	acksRefilling
	acksProbeStarting
	acksProbeFeedback
	acksProbeStopping
)

const (
	// infinite marks an unset volume bound (the draft's Infinity).
	infinite = math.MaxInt64
	// maxVolume caps computed volumes far below overflow: 64 TiB.
	maxVolume = 1 << 46
	// noRTT marks BBR.min_rtt before any sample (Infinity).
	noRTT = time.Duration(math.MaxInt64)
)

// BBR is one connection path's BBRv3 controller. Fields use the draft's
// names; (C) connection state and (BBR) algorithm state live together.
type BBR struct {
	rng         *rand.Rand
	smss        int64 // C.SMSS: quic-go's max datagram size
	initialCwnd int64 // C.InitialCwnd

	rate sampler
	rs   rateSample // the sample of the ACK being processed

	inflight    int64 // C.inflight, as last reported by the transport
	cwnd        int64 // C.cwnd
	pacer       pacer // C.pacing_rate, C.send_quantum and the token bucket
	largestSent int64
	// pacingInitialised records that InitPacingRate ran with an RTT sample.
	pacingInitialised bool

	// cwndLimitedThisRound and cwndLimitedLastRound give
	// C.is_cwnd_limited: cwnd was used up in the last round trip.
	cwndLimitedThisRound, cwndLimitedLastRound bool

	// Loss recovery (RFC 9002 §7.3.2): it starts at a loss of a packet
	// sent after the previous recovery started and ends when a packet sent
	// after it started is acknowledged.
	inRecovery  bool
	recoveryEnd int64 // largest packet number sent when it started
	priorCwnd   int64 // BBR.prior_cwnd
	// The model as it was before the last loss round began (§5.5.11's
	// BBR.undo_*), restored when a loss turns out spurious.
	undoState                                   state
	undoFullBwReached                           bool
	undoBwShortterm                             float64
	undoInflightShortterm, undoInflightLongterm int64

	state                  state
	pacingGain, cwndGain   float64
	roundCount             uint64 // BBR.round_count
	roundStart             bool
	nextRoundDelivered     int64
	idleRestart            bool
	drainStartRound        uint64
	consecutiveTimeouts    int
	lastLostNumber         int64
	round                  lossRound // the loss round under way
	lastRound              lossRound // the one that ended on this ACK
	ecnAlpha               float64
	randomLoss             float64       // the path's loss rate without a queue
	randomLossEvents       float64       // its loss events per packet (burst.go)
	randomLossRounds       int           // rounds that measured them: the first eight weigh alike (updateRandomLoss)
	rttJitter              time.Duration // the path's RTT spread without a queue (jitter.go)
	lossRoundDelivered     int64
	lossRoundStart         bool
	isLossInRound          bool
	bwLatest               float64 // BBR.bw_latest
	inflightLatest         int64   // BBR.inflight_latest
	maxBwFilter            bwFilter
	maxBw                  float64 // BBR.max_bw, bytes per second
	bwShortterm            float64 // BBR.bw_shortterm; +Inf when unset
	bw                     float64 // BBR.bw
	minRTT                 time.Duration
	minRTTStamp            congestion.Time
	connMinRTT             time.Duration // C.min_rtt, 0 before a sample
	bdp                    int64
	extraAcked             int64
	extraAckedFilter       maxFilter
	extraAckedStart        congestion.Time
	extraAckedDelivered    int64
	maxInflight            int64 // BBR.max_inflight
	inflightLongterm       int64 // infinite when unset
	inflightShortterm      int64 // infinite when unset
	fullBwReached          bool
	fullBwNow              bool
	fullBw                 float64
	fullBwCount            int
	startupLossRounds      int     // loss rounds in a row that met Startup's loss exit (checkStartupHighLoss)
	pipeBw                 float64 // the round's fastest filledPipe sample
	ackPhase               ackPhase
	isBwProbeSample        bool
	bwProbeUpAcked         int64
	probeUpAckedPerInc     int64
	bwProbeUpRounds        int
	roundsSinceProbeUp     uint64
	bwProbeWait            time.Duration
	cycleStamp             congestion.Time
	prevProbeTooHigh       bool
	prevProbePrecautionary bool
	probeRTTMinDelay       time.Duration
	probeRTTMinStamp       congestion.Time
	probeRTTExpired        bool
	probeRTTDoneStamp      congestion.Time
	probeRTTDoneSet        bool
	probeRTTRoundDone      bool

	resume *resumer // Careful Resume (resume.go); nil: off
}

// Option configures a controller.
type Option func(*BBR)

// WithSeed makes the randomised bandwidth-probe timing (§5.3.3.8)
// reproducible, for tests and simulations.
func WithSeed(seed uint64) Option {
	return func(b *BBR) { b.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }
}

// New returns a BBRv3 controller for a connection. It is a
// congestion.Factory.
func New(conn congestion.Conn) congestion.Controller {
	return newBBR(conn)
}

var _ congestion.Controller = (*BBR)(nil)

// newBBR is OnInit (§5.2.1).
func newBBR(conn congestion.Conn, opts ...Option) *BBR {
	smss := conn.InitialMaxDatagramSize
	if smss <= 0 {
		smss = 1200 // RFC 9000 §14: the smallest datagram QUIC allows
	}
	var now congestion.Time
	if conn.Now != nil {
		now = conn.Now()
	}
	b := &BBR{
		smss:               smss,
		initialCwnd:        initialCwndPackets * smss,
		rate:               newSampler(),
		largestSent:        -1,
		lastLostNumber:     -2,
		recoveryEnd:        -1,
		minRTT:             noRTT,
		minRTTStamp:        now,
		probeRTTMinDelay:   noRTT,
		probeRTTMinStamp:   now,
		extraAckedStart:    now,
		inflightLongterm:   infinite,
		probeUpAckedPerInc: infinite,
	}
	b.cwnd = b.initialCwnd
	for _, o := range opts {
		o(b)
	}
	if b.rng == nil {
		WithSeed(rand.Uint64())(b)
	}
	b.resetCongestionSignals()
	b.resetShortTermModel()
	b.resetFullBw()
	b.initPacingRate(0)
	b.enterStartup()
	return b
}

// minPipeCwnd is BBR.MinPipeCwnd.
func (b *BBR) minPipeCwnd() int64 { return minPipeCwndPackets * b.smss }

// OnPacketSent records a packet's delivery snapshot (§4.1.2.2) after the
// per-transmit step (§5.2.2). Packets that are not ack-eliciting do not
// count in flight and carry no rate sample.
func (b *BBR) OnPacketSent(now congestion.Time, p congestion.Packet, bytesInFlight int64, isRetransmittable bool) {
	if !isRetransmittable || p.Bytes <= 0 {
		return
	}
	prior := max(bytesInFlight-p.Bytes, 0)
	b.inflight = prior
	b.handleRestartFromIdle(now)
	b.rate.onSent(now, p, prior, bytesInFlight)
	b.pacer.onSent(now, p.Bytes, b.smss)
	b.inflight = bytesInFlight
	b.largestSent = max(b.largestSent, p.Number)
	if bytesInFlight+b.smss > b.cwnd {
		b.cwndLimitedThisRound = true
	}
	b.resumeOnSent(p.Number, bytesInFlight)
}

// OnAck runs the per-ACK steps (§5.2.3), with the per-loss steps (§5.2.4)
// for the packets the same event declared lost: like TCP, which marks
// losses while processing the ACK before congestion control runs.
func (b *BBR) OnAck(ev congestion.AckEvent) {
	now := ev.Now
	b.rs = rateSample{rtt: -1}
	rs := &b.rs
	for _, p := range ev.Acked {
		b.rate.onAcked(now, p, rs)
		b.round.ackedPackets++
		if b.inRecovery && p.Number > b.recoveryEnd {
			b.exitRecovery()
		}
	}
	if len(ev.Acked) > 0 {
		b.consecutiveTimeouts = 0
	}
	b.round.delivered += rs.newlyAcked
	b.round.cePackets += max(ev.ECNCE, 0)
	b.inflight = max(ev.BytesInFlight, 0)
	for _, p := range ev.Lost {
		b.onLost(now, p)
	}
	if rtt := ev.RTT.Min; rtt > 0 && (b.connMinRTT == 0 || rtt < b.connMinRTT) {
		b.connMinRTT = rtt
	}
	b.rate.generate(now, rs, b.connMinRTT)
	if rs.hasData && rs.rtt > 0 {
		if b.connMinRTT == 0 || rs.rtt < b.connMinRTT {
			b.connMinRTT = rs.rtt
		}
		b.round.noteRTT(rs.rtt)
	}
	if srtt := ev.RTT.Smoothed; !b.pacingInitialised && !b.fullBwReached {
		if srtt <= 0 && rs.hasData {
			srtt = rs.rtt
		}
		if srtt > 0 {
			b.initPacingRate(srtt)
		}
	}
	if len(ev.Acked) == 0 && len(ev.Lost) == 0 && ev.ECNCE <= 0 {
		return
	}
	b.updateModelAndState(now)
	b.updateControlParameters()
	b.resumeOnAck(ev)
}

// updateModelAndState is UpdateModelAndState (§5.2.3).
func (b *BBR) updateModelAndState(now congestion.Time) {
	b.updateLatestDeliverySignals()
	b.updateCongestionSignals(now)
	b.updateACKAggregation(now)
	b.checkFullBwReached()
	b.checkStartupDone()
	b.checkDrainDone(now)
	b.updateProbeBWCyclePhase(now)
	b.updateMinRTT(now)
	b.checkProbeRTT(now)
	b.advanceLatestDeliverySignals()
	b.boundBwForModel()
}

// updateControlParameters is UpdateControlParameters (§5.2.3).
func (b *BBR) updateControlParameters() {
	b.setPacingRate()
	b.pacer.setSendQuantum(b.smss)
	b.setCwnd()
}

// OnRetransmissionTimeout handles a probe timeout. A QUIC PTO is not a
// loss signal (RFC 9002 §6.2.4: it must not change the window; losses come
// later through OnAck), so the first one keeps the model. A second timeout
// in a row without any ACK between them is treated as the draft's
// retransmission timeout (§5.6.4.4): the path may be gone, so the window
// falls to what is in flight plus one packet and comes back from the saved
// value once ACKs return. Timeouts before the connection's first RTT sample
// do not count: their timer ran on the transport's initial RTT guess
// (quic-go: 100 ms, a first PTO after 200 ms), not on the path, so on a
// 350-425 ms mobile path the handshake's Initial and Handshake probes fired
// before any ACK could return and cut a new connection's window to 4
// packets before its first response (lte-india-congested's qlog).
func (b *BBR) OnRetransmissionTimeout(packetsRetransmitted bool) {
	if !packetsRetransmitted || b.connMinRTT == 0 {
		return
	}
	b.consecutiveTimeouts++
	if b.consecutiveTimeouts < 2 {
		return
	}
	b.saveStateUponLoss()
	if !b.inRecovery {
		b.inRecovery = true
		b.recoveryEnd = b.largestSent
	}
	b.cwnd = max(min(b.inflight, maxVolume)+b.smss, b.minPipeCwnd())
}

// OnAppLimited marks the connection app-limited (§4.1.2.4): the sender
// had nothing to send although cwnd and pacing allowed more.
func (b *BBR) OnAppLimited(now congestion.Time, bytesInFlight int64) {
	b.inflight = max(bytesInFlight, 0)
	if b.inflight >= b.cwnd {
		return // cwnd-limited, not app-limited
	}
	b.rate.markAppLimited(b.inflight)
}

// CanSend reports whether C.inflight is below C.cwnd.
func (b *BBR) CanSend(bytesInFlight int64) bool {
	return bytesInFlight < b.cwnd
}

// HasPacingBudget reports whether the pacer lets a packet leave now.
func (b *BBR) HasPacingBudget(now congestion.Time) bool {
	return b.pacer.hasBudget(now, b.smss)
}

// TimeUntilSend is when the pacer next lets a packet leave; 0 is now.
func (b *BBR) TimeUntilSend(int64) congestion.Time {
	return b.pacer.timeUntilSend(b.smss)
}

// SetMaxDatagramSize updates C.SMSS when path MTU discovery raises it.
func (b *BBR) SetMaxDatagramSize(size int64) {
	if size <= 0 || size > maxSendQuantum {
		return
	}
	b.smss = size
	b.pacer.setSendQuantum(b.smss)
	b.cwnd = max(b.cwnd, b.minPipeCwnd())
}

// Info reports the model and the control parameters.
func (b *BBR) Info() congestion.Info {
	info := congestion.Info{
		CongestionWindow:    b.cwnd,
		PacingRate:          b.pacer.rateBytes(),
		BottleneckBandwidth: toBytes(b.maxBw),
		State:               b.state.String(),
		InSlowStart:         b.state == startup,
		InRecovery:          b.inRecovery,
	}
	if b.minRTT != noRTT {
		info.MinRTT = b.minRTT
	}
	return info
}

// handleRestartFromIdle is HandleRestartFromIdle (§5.4.1), run before a
// packet leaves: after an idle period the model is kept as it is, and in
// ProbeBW the first flight is paced at exactly BBR.bw, so a kept
// connection resumes at the rate it had rather than from a small window.
func (b *BBR) handleRestartFromIdle(now congestion.Time) {
	if b.inflight != 0 || b.rate.appLimited == 0 {
		return
	}
	b.idleRestart = true
	b.extraAckedStart = now
	if b.isInProbeBWState() {
		b.setPacingRateWithGain(1)
	} else if b.state == probeRTT {
		b.checkProbeRTTDone(now)
	}
}

// toBytes converts a rate or volume to int64, clamped to [0, maxVolume].
func toBytes(f float64) int64 {
	switch {
	case math.IsNaN(f) || f <= 0:
		return 0
	case f >= maxVolume:
		return maxVolume
	}
	return int64(f)
}
