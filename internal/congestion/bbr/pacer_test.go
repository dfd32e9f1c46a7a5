package bbr

import (
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// The pacer lets a whole send quantum leave together, then holds the next
// packet until a quantum has accrued at the pacing rate; over time the
// rate is the pacing rate.
func TestPacerSendsQuantumBursts(t *testing.T) {
	const smss = 1200
	for _, rate := range []float64{mbit(2), mbit(20), mbit(200), mbit(2000)} {
		p := pacer{rate: rate}
		p.setSendQuantum(smss)
		wantQuantum := max(min(int64(rate/1000), maxSendQuantum), 2*smss)
		if p.quantum != wantQuantum {
			t.Errorf("%.0f B/s: quantum %d, want %d", rate, p.quantum, wantQuantum)
		}
		now := congestion.Time(time.Second)
		start := now
		var sent int64
		var bursts, inBurst int
		for sent < 200*p.quantum {
			if !p.hasBudget(now, smss) {
				at := p.timeUntilSend(smss)
				if at <= now {
					t.Fatalf("%.0f B/s: no budget at %d, yet next send at %d", rate, now, at)
				}
				if inBurst > 0 && int64(inBurst)*smss < p.quantum-smss {
					t.Fatalf("%.0f B/s: burst of %d packets, quantum %d bytes", rate, inBurst, p.quantum)
				}
				now, inBurst = at, 0
				bursts++
				continue
			}
			p.onSent(now, smss, smss)
			sent += smss
			inBurst++
		}
		got := float64(sent) / now.Sub(start).Seconds()
		if r := got / rate; r < 0.97 || r > 1.03 {
			t.Errorf("%.0f B/s: paced %.0f B/s (%.3f)", rate, got, r)
		}
		if bursts < 150 {
			t.Errorf("%.0f B/s: %d bursts for 200 quanta", rate, bursts)
		}
	}
}

// After an idle period the pacer allows one quantum at once, not
// everything the idle time would have earned.
func TestPacerBurstAfterIdleIsOneQuantum(t *testing.T) {
	p := pacer{rate: mbit(100)}
	p.setSendQuantum(1200)
	now := congestion.Time(time.Second)
	p.onSent(now, 1200, 1200)
	now = now.Add(10 * time.Second)
	if got := p.budgetAt(now); got != p.quantum {
		t.Errorf("budget after idle %d, want one quantum %d", got, p.quantum)
	}
}
