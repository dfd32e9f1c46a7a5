package bbr

import (
	"time"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// Careful Resume (RFC 9959, draft-ietf-tsvwg-careful-resume-24:
// "Convergence of Congestion Control from Retained State"). A new
// connection to a client the edge served recently starts like any other
// (the Reconnaissance phase) and, once its first RTT sample matches the
// saved RTT and it has more to send than its window allows, jumps its
// window to half the saved one, paced over a round trip (Unvalidated). A
// round trip later the jump's first packets are acknowledged (Validating);
// once its last are, the connection runs on BBR's own model (Normal). A
// loss while the jump is in flight sends it to Safe Retreat: the window
// falls back to what BBR's Startup would have had without the jump. The
// saved values come from the connection's previous BBR (the edge's path
// memory, internal/congestion/pathmemory); this controller only uses them.
//
// Departure from the draft: which loss is congestion. The draft's signal
// is any loss (a loss in Reconnaissance ends it, a loss of the jump is
// Safe Retreat). On a radio path that loses a few percent of its
// packets at random, that signal fires on nearly every resumption for a
// loss no slowing down prevents: in the lab's lte-india (3.5% random
// loss), a jump of 60-80 packets lost one 29 times of 30 and retreated,
// and a fifth of the connections lost one before they could jump. BBR
// itself does not read such loss as congestion (signals.go: loss in a
// round without a queue, below what the path's random loss explains), so
// a resuming connection judges its losses the same way, from the loss
// rate the previous connection on the path saw (Resume.LossRate): a loss
// is congestion when the connection's losses so far exceed what that rate
// explains (the lossThreshold binomial bound, capped at maxLossThresh), or
// when the round's fastest packets came back more than a quarter of the
// saved RTT late (a standing queue: another flow, or the jump's own on a
// path that slowed). A jump into a real queue still retreats: a drop-tail
// queue overflowing under the jump loses packets all along its tail, far
// above the path's random loss, and a standing queue raises every RTT.
// Without a saved loss rate (the previous connection measured too little)
// any loss is congestion, as in the draft. The saved rate counts at most
// maxResumeLossRate, so a path that lost much to its own queue does not
// make the next connection tolerate much.

// resumePhase is the draft's phase of a resuming connection.
type resumePhase uint8

const (
	resumeReconnaissance resumePhase = iota
	resumeUnvalidated
	resumeValidating
	resumeDone // Normal, or Safe Retreat once its loss was handled
)

var resumePhaseNames = [...]string{
	resumeReconnaissance: "reconnaissance",
	resumeUnvalidated:    "unvalidated",
	resumeValidating:     "validating",
}

// ResumeOutcome is how a connection used its saved path values, reported
// once.
type ResumeOutcome string

const (
	// ResumeJumped: the jump was validated (no loss until its last packet
	// was acknowledged).
	ResumeJumped ResumeOutcome = "jumped"
	// ResumeRetreated: a loss while the jump was in flight (Safe Retreat).
	ResumeRetreated ResumeOutcome = "retreated"
	// ResumeRTTChanged: the first RTT sample was outside the saved RTT's
	// bounds, so the saved values were ignored.
	ResumeRTTChanged ResumeOutcome = "rtt_changed"
	// ResumeNotUsed: a loss before the jump, or the jump would not have
	// raised the window.
	ResumeNotUsed ResumeOutcome = "not_used"
)

// Only decided connections report an outcome: one that ends before its
// jump is decided or validated (it never needed more than its window, or
// closed mid-jump) reports none, so the outcomes of connections that
// found a record add up to at most their number.

// maxResumeJump caps the jump whatever the saved window said: a client
// sharing its address (a carrier's NAT) cannot make the edge send another
// client more than this unvalidated in one round trip. 1 MiB is half the
// window of a 160 Mbit/s path at 100 ms.
const maxResumeJump = 1 << 20

// minDatagramSize is QUIC's smallest datagram (RFC 9000 §14).
const minDatagramSize = 1200

// Resume is what a connection's previous controller left for this one.
type Resume struct {
	// Cwnd is the saved_cwnd: the window the previous connection validated.
	Cwnd int64
	// RTT is the saved_rtt: its minimum RTT.
	RTT time.Duration
	// LossRate is the share of the bytes the previous connection sent that
	// were lost (0: not measured); losses up to what it explains are not
	// congestion while resuming.
	LossRate float64
	// Report, if set, is told the outcome once.
	Report func(ResumeOutcome)
}

// maxResumeLossRate caps the saved loss rate a resuming connection allows
// for: the lossiest of the mobile paths this edge is for (7%) and some.
const maxResumeLossRate = 0.10

// resumeMinLossVolume is the least a connection must have sent, in
// packets, for its loss rate to be saved: at 3.5% loss, 64 packets
// measure the rate to within about ±2.3 points (one standard deviation).
const resumeMinLossVolume = 64

// resumer is one connection's Careful Resume state.
type resumer struct {
	saved    Resume
	phase    resumePhase
	jumpCwnd int64
	// firstUnvalidated and lastUnvalidated are the packet numbers that
	// open and close the jump's flight (lastUnvalidated -1 while it grows).
	firstUnvalidated, lastUnvalidated int64
	// pipeSize is the draft's PipeSize: bytes acknowledged since the jump.
	pipeSize int64
	outcome  ResumeOutcome // once resumeDone
}

// String is the phase, or the outcome once decided (for the qlog).
func (r *resumer) String() string {
	if r.phase != resumeDone {
		return resumePhaseNames[r.phase]
	}
	return string(r.outcome)
}

// WithResume makes the controller resume from a previous connection's
// values.
func WithResume(r Resume) Option {
	return func(b *BBR) {
		if r.Cwnd > 0 && r.RTT > 0 {
			b.resume = &resumer{saved: r, lastUnvalidated: -1}
		}
	}
}

// NewResuming returns a congestion.Factory whose controllers resume from r.
func NewResuming(r Resume) congestion.Factory {
	return func(conn congestion.Conn) congestion.Controller {
		return newBBR(conn, WithResume(r))
	}
}

func (r *resumer) finish(outcome ResumeOutcome) {
	r.phase, r.outcome = resumeDone, outcome
	if r.saved.Report != nil {
		r.saved.Report(outcome)
	}
}

// normalCwnd is the window BBR's Startup would have now without the jump:
// it starts at the initial window and grows by what is acknowledged.
func (b *BBR) normalCwnd() int64 {
	return max(min(b.initialCwnd+b.rate.delivered, maxVolume), b.minPipeCwnd())
}

// resumeOnSent runs after each packet sent: the jump happens when the
// sender has more to send than the window allows (the draft's
// cwnd-limited condition) in Reconnaissance, if the connection's RTT (its
// minimum so far, from its first sample on) is within the draft's bounds
// of the saved one: above half of it and below ten times it. The jump must
// exceed the window by more than the saved window's own uncertainty
// (resumeRTTAllowance, see Observe): one within it may be that allowance
// alone (mobile-ru, whose saved window halves to about the initial one),
// and is not worth an unvalidated flight.
func (b *BBR) resumeOnSent(number, bytesInFlight int64) {
	r := b.resume
	if r == nil || r.phase != resumeReconnaissance || b.connMinRTT == 0 ||
		bytesInFlight+b.smss <= b.cwnd {
		return
	}
	if b.connMinRTT <= r.saved.RTT/2 || b.connMinRTT >= 10*r.saved.RTT {
		r.finish(ResumeRTTChanged) // not the path the values describe
		return
	}
	r.jumpCwnd = min(r.saved.Cwnd/2, maxResumeJump)
	if float64(r.jumpCwnd) <= resumeRTTAllowance*float64(b.cwnd) {
		r.finish(ResumeNotUsed)
		return
	}
	r.phase = resumeUnvalidated
	r.firstUnvalidated = number + 1
	b.cwnd = r.jumpCwnd
	b.resumePacing()
}

// resumePacing paces the jump over one round trip (the draft's pacing
// rate jump_cwnd/current_rtt), or faster if BBR's own rate is higher.
func (b *BBR) resumePacing() {
	rtt := b.connMinRTT
	if rtt <= 0 {
		return
	}
	b.pacer.rate = max(b.pacer.rate, float64(b.resume.jumpCwnd)/rtt.Seconds())
	b.pacer.setSendQuantum(b.smss)
}

// resumeOnAck runs after the ACK's model and control updates.
func (b *BBR) resumeOnAck(ev congestion.AckEvent) {
	r := b.resume
	if r == nil || r.phase == resumeDone {
		return
	}
	congested := len(ev.Lost) > 0 && b.resumeCongested()
	if r.phase == resumeReconnaissance {
		if congested {
			r.finish(ResumeNotUsed) // congestion before the jump: Normal
		}
		return
	}
	if congested {
		b.safeRetreat()
		return
	}
	for _, p := range ev.Acked {
		if p.Number >= r.firstUnvalidated {
			r.pipeSize += p.Bytes
		}
	}
	largest := int64(-1)
	if n := len(ev.Acked); n > 0 {
		largest = ev.Acked[n-1].Number
	}
	if r.phase == resumeUnvalidated {
		if largest < r.firstUnvalidated {
			b.resumePacing() // BBR's per-ACK update does not lower it
			return
		}
		// The jump's first packet is acknowledged: Validating. A window the
		// sender did not fill falls back to what it used (the draft sets
		// it to the flight size), never below what Startup would have.
		r.phase = resumeValidating
		r.lastUnvalidated = b.largestSent
		b.cwnd = min(b.cwnd, max(b.inflight+r.pipeSize, b.normalCwnd()))
	}
	if largest >= r.lastUnvalidated {
		r.finish(ResumeJumped)
	}
}

// resumeCongested reports whether the connection's losses so far say the
// path is congested (see the departure from the draft above): any loss
// without a saved loss rate; with one, more loss than it explains over
// what the connection sent, or loss with a standing queue. A single lost
// packet is never more than the rate explains: before the page fills the
// initial window a connection has sent a handful of packets, of which one
// lost is a rate above any threshold, yet it is what the path's random
// loss does to one connection in four (lte-india: the handshake and the
// HTML, about eight packets, at 3.5%), and says nothing of a queue.
func (b *BBR) resumeCongested() bool {
	p := min(b.resume.saved.LossRate, maxResumeLossRate)
	if p <= 0 {
		return true
	}
	volume := b.rate.lost + b.rate.delivered
	tooMuch := b.rate.lost > b.smss && float64(b.rate.lost) > float64(volume)*b.explainedLossRate(p, volume)
	return tooMuch || b.resumeQueued()
}

// resumeQueued reports whether the fastest RTT sample of the loss round
// under way (with the round before, while this one has few) exceeds the
// saved RTT by more than a quarter of it. The saved RTT is the path's
// least, the luckiest packet of a whole connection; a quarter of it allows
// for the jitter a round's fastest packet still shows (lte-india, 350 ms
// with 75 ms of jitter: in the lab's cold connections a loss round's
// fastest sample was within 7% of min_rtt at the median, 23% at the 80th
// percentile), while a queue standing that long holds a quarter of the
// path's BDP.
func (b *BBR) resumeQueued() bool {
	fastest := b.round.minRTT
	if last := b.lastRound.minRTT; b.round.ackedPackets < randomLossMinPackets && last > 0 &&
		(fastest == 0 || last < fastest) {
		fastest = last
	}
	if fastest == 0 {
		fastest = b.connMinRTT
	}
	return float64(fastest) > resumeRTTAllowance*float64(b.resume.saved.RTT)
}

// safeRetreat is the draft's Safe Retreat: a loss while the jump is in
// flight. The window falls to what Startup would have had without the
// jump (which covers the draft's PipeSize: everything the jump got
// acknowledged), the pacing rate to BBR's model; the saved values are not
// used again by this connection.
func (b *BBR) safeRetreat() {
	b.cwnd = min(b.cwnd, b.normalCwnd())
	b.pacer.rate = startupPacingGain * float64(b.initialCwnd) / b.connMinRTT.Seconds() // InitPacingRate's
	b.setPacingRateWithGain(b.pacingGain)
	b.pacer.setSendQuantum(b.smss)
	b.resume.finish(ResumeRetreated)
}

// Observe is the draft's Observe phase: the saved_cwnd and saved_rtt that
// a connection's controller leaves, as it ended, for the next connection
// from the same client. The window counts only as far as the model backs
// it: at most BBR's own bound in ProbeBW (BBR.DefaultCwndGain times the
// measured bandwidth times the RTT), so a Startup window that grew with
// what was acknowledged, faster than the path was measured, is not saved
// whole. That RTT is min_rtt plus the jitter allowance (resumeRTTAllowance),
// not min_rtt alone: a page smaller than the path's BDP (lte-india's cold
// page, 197 KB on 219 KB) measures its bandwidth as its largest flight over
// the round trip that flight took, a jittered one, and min_rtt is the
// luckiest packet's. Their product was about 0.8 of the flight the page
// had carried (the simulator's cold pages with lte-india's 75 ms of jitter,
// 0.79 at the median), so each cold page saved less than it had carried,
// the next one jumped to that, carried no more, and the memory settled
// below what the pages themselves proved (coldpace_test.go). With the
// allowance the next jump is the flight the page carried (0.92 of it),
// while a path the page filled is still held to 1.25 times its measured
// BDP, the queue the jump's validation allows (resumeQueued). A
// connection that delivered less than an initial window measured nothing
// an initial window does not already allow, and one that ended in ProbeRTT
// had a window cut on purpose: neither leaves anything (ok false).
// The loss rate is left only by a connection that sent enough to measure
// it (resumeMinLossVolume): the share of its bytes declared lost.
func Observe(info congestion.Info, delivered, lost int64) (saved Resume, ok bool) {
	if info.MinRTT <= 0 || info.BottleneckBandwidth <= 0 || info.State == probeRTT.String() ||
		delivered < initialCwndPackets*minDatagramSize {
		return Resume{}, false
	}
	measured := toBytes(defaultCwndGain * float64(info.BottleneckBandwidth) * resumeRTTAllowance * info.MinRTT.Seconds())
	saved = Resume{Cwnd: min(info.CongestionWindow, measured), RTT: info.MinRTT}
	if sent := delivered + max(lost, 0); sent >= resumeMinLossVolume*minDatagramSize {
		saved.LossRate = float64(max(lost, 0)) / float64(sent)
	}
	return saved, saved.Cwnd > 0
}

// resumeRTTAllowance is how far above the path's least RTT a round trip
// may run on jitter alone, without a queue: a quarter (resumeQueued,
// Observe).
const resumeRTTAllowance = 1.25
