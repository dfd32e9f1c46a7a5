package bbr

import (
	"math"
	"time"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// Pacing (§5.6.2) and the send quantum (§5.6.3).
//
// The pacer is a token bucket of at most one send quantum. Once it runs
// dry it lets nothing more leave until a whole quantum has accrued, so
// packets leave in quantum-sized bursts that quic-go can hand to the
// kernel as one GSO batch, spaced quantum/rate apart: the draft's
// per-quantum departure schedule (C.next_send_time) as a budget.
//
// The sender cannot come back on time. quic-go's send loop sleeps on a Go
// timer until TimeUntilSend, and Go's netpoller sleeps in whole
// milliseconds (a wait under one sleeps one; golang/go#44343), so the
// loop wakes a millisecond or more after it went to sleep and then a few
// tenths late: in the lab, quanta that refill in 0.89 ms left 1.20 ms
// apart, and the edge sent at 0.7 of its pacing rate. Moving the next
// quantum earlier cannot help a loop that cannot wake sooner, so the
// bucket's cap grows, while the pacer holds the sender, by what the rate
// earns between the instant TimeUntilSend gave and the wake-up: the burst
// that wakes late carries what the lateness would have sent, at most
// maxLateCredit more than a quantum. Only a wait for the pacer earns it:
// a sender the window stops or the application leaves idle was not
// waiting for the pacer, and its stall or idleness earns nothing, so a
// burst after one is still one quantum.
type pacer struct {
	rate    float64 // C.pacing_rate, bytes per second
	quantum int64   // C.send_quantum
	// budget is what could leave at last; refilling is set while the
	// bucket refills to a whole quantum.
	budget    int64
	last      congestion.Time
	sent      bool
	refilling bool
	// heldUntil is the instant TimeUntilSend last gave a sender the pacer
	// held back, until its burst ends or it turns out not to be waiting
	// for the pacer (0: not held).
	heldUntil congestion.Time
}

// setSendQuantum is SetSendQuantum: the pacing rate times 1 ms, between
// two packets and 64 KiB.
func (p *pacer) setSendQuantum(smss int64) {
	q := toBytes(p.rate * sendQuantumTime.Seconds())
	p.quantum = max(min(q, maxSendQuantum), 2*smss)
}

// budgetAt is what may leave at now.
func (p *pacer) budgetAt(now congestion.Time) int64 {
	if !p.sent {
		return p.quantum
	}
	limit := p.quantum + p.lateCredit(now)
	added := toBytes(p.rate * max(now.Sub(p.last), 0).Seconds())
	return min(p.budget+min(added, limit), limit)
}

// lateCredit is what the rate earned since the instant the pacer gave a
// sender it held, at most maxLateCredit.
func (p *pacer) lateCredit(now congestion.Time) int64 {
	if p.heldUntil == 0 || now <= p.heldUntil {
		return 0
	}
	return min(toBytes(p.rate*now.Sub(p.heldUntil).Seconds()), p.maxLateCredit())
}

// maxLateCredit bounds the credit for a late wake-up: the rate's worth of
// the timer's granularity, at most a quantum (above 524 Mbit/s the
// quantum is capped at 64 KiB), so a late burst is at most two quanta, and
// at low rates (a quantum of two packets) less.
func (p *pacer) maxLateCredit() int64 {
	return min(toBytes(p.rate*senderTimerGranularity.Seconds()), p.quantum)
}

// notHeld forgets a wait for the pacer: the sender found the window full
// or had nothing to send, so the time since was not the pacer's.
func (p *pacer) notHeld() { p.heldUntil = 0 }

func (p *pacer) hasBudget(now congestion.Time, smss int64) bool {
	b := p.budgetAt(now)
	if p.refilling {
		return b >= p.quantum
	}
	return b >= smss
}

func (p *pacer) onSent(now congestion.Time, size, smss int64) {
	b := p.budgetAt(now)
	if b >= p.quantum {
		p.refilling = false
	}
	p.budget = max(b-size, 0)
	p.last = now
	p.sent = true
	if p.budget < smss {
		p.refilling = true
		p.heldUntil = 0 // the burst is out; the next wait starts afresh
	}
}

// timeUntilSend is when the bucket next allows a packet: a full quantum
// if it ran dry. The sender asks when the pacer holds it back and sleeps
// until then, so that instant is where its lateness starts.
func (p *pacer) timeUntilSend(smss int64) congestion.Time {
	target := smss
	if p.refilling {
		target = p.quantum
	}
	if !p.sent || p.budget >= target || p.rate <= 0 {
		return 0
	}
	// One nanosecond more than the exact wait, so float rounding never
	// leaves the budget a byte short when the transport's timer fires.
	wait := math.Ceil(float64(target-p.budget)/p.rate*float64(time.Second)) + 1
	p.heldUntil = p.last.Add(time.Duration(min(wait, float64(time.Hour))))
	return p.heldUntil
}

func (p *pacer) rateBytes() int64 { return toBytes(p.rate) }

// initPacingRate is InitPacingRate: the initial window over the smoothed
// RTT (1 ms before there is one) at the Startup gain.
func (b *BBR) initPacingRate(srtt time.Duration) {
	if srtt > 0 {
		b.pacingInitialised = true
	} else {
		srtt = time.Millisecond
	}
	b.pacer.rate = startupPacingGain * float64(b.initialCwnd) / srtt.Seconds()
	b.pacer.setSendQuantum(b.smss)
}

// setPacingRate is SetPacingRate.
func (b *BBR) setPacingRate() {
	b.setPacingRateWithGain(b.pacingGain)
}

// setPacingRateWithGain is SetPacingRateWithGain: gain·bw less the 1%
// margin; before the pipe is full the rate only rises, so app-limited
// samples in Startup do not slow it. The rate never falls below
// BBR.MinPipeCwnd per min_rtt, which cwnd allows anyway, so it stays
// positive whatever the model says.
func (b *BBR) setPacingRateWithGain(gain float64) {
	rate := gain * b.bw * (100 - pacingMarginPercent) / 100
	if b.fullBwReached || rate > b.pacer.rate {
		b.pacer.rate = rate
	}
	floorRTT := time.Second // before any RTT sample
	if b.minRTT != noRTT && b.minRTT > 0 {
		floorRTT = b.minRTT
	}
	b.pacer.rate = min(max(b.pacer.rate, float64(b.minPipeCwnd())/floorRTT.Seconds()), maxVolume)
}
