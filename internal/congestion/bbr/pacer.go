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
type pacer struct {
	rate    float64 // C.pacing_rate, bytes per second
	quantum int64   // C.send_quantum
	// budget is what could leave at last; refilling is set while the
	// bucket refills to a whole quantum.
	budget    int64
	last      congestion.Time
	sent      bool
	refilling bool
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
	added := toBytes(p.rate * max(now.Sub(p.last), 0).Seconds())
	return min(p.budget+min(added, p.quantum), p.quantum)
}

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
	}
}

// timeUntilSend is when the bucket next allows a packet: a full quantum
// if it ran dry.
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
	return p.last.Add(time.Duration(min(wait, float64(time.Hour))))
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
