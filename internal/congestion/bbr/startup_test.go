package bbr

import (
	"math"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// Startup ends once the pipe is full, with a bandwidth estimate within 15%
// of the bottleneck's rate, in about log2(BDP/initial window) + 3 rounds
// (§5.3.1): on clean paths of several sizes, with a shallow buffer, and on
// a lossy radio link like the lab's lte-india profile, whose random loss
// must not end Startup early.
func TestStartupExitsNearBDP(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    path
	}{
		{"1Mbit-100ms", path{rate: mbit(1), delay: 50 * time.Millisecond}},
		{"10Mbit-40ms", path{rate: mbit(10), delay: 20 * time.Millisecond}},
		{"50Mbit-40ms", path{rate: mbit(50), delay: 20 * time.Millisecond}},
		{"100Mbit-100ms", path{rate: mbit(100), delay: 50 * time.Millisecond}},
		{"10Mbit-40ms-shallow", path{rate: mbit(10), delay: 20 * time.Millisecond, queue: -4}},
		{"lte-india-5Mbit-350ms-3.5%", path{rate: mbit(5), delay: 175 * time.Millisecond, loss: 0.035}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			if p.queue < 0 { // a fraction of the BDP
				p.queue = p.bdp() / -p.queue
			}
			s, b := newBulkBBR(p, 1)
			trace := traceStates(s, b)
			if !s.runUntil(func() bool { return b.state != startup }, 60*p.minRTT()) {
				t.Fatalf("still in Startup after 60 round trips; bw %.0f of %.0f", b.maxBw, p.rate)
			}
			exit := (*trace)[1]
			ratio := float64(exit.info.BottleneckBandwidth) / p.rate
			bdpPackets := float64(p.bdp()) / simMSS
			expectRounds := math.Log2(max(bdpPackets/initialCwndPackets, 1)) + fullBwRounds
			t.Logf("BDP %.0f packets: left Startup for %s after %d rounds (%v); bw %.3f of the link; cwnd %d (%.2f BDP); drops %d random, %d overflow",
				bdpPackets, exit.state, b.roundCount, exit.at, ratio, exit.info.CongestionWindow,
				float64(exit.info.CongestionWindow)/float64(p.bdp()), s.stats.randomDrops, s.stats.overflowDrops)
			if ratio < 0.85 || ratio > 1.15 {
				t.Errorf("bw estimate at Startup exit is %.3f of the link rate, want within 15%%", ratio)
			}
			if float64(b.roundCount) > expectRounds+4 {
				t.Errorf("Startup took %d rounds, want about %.1f", b.roundCount, expectRounds)
			}
		})
	}
}

// startupBehindQueue drives a connection's Startup through a bottleneck
// whose queue holds every packet for rtt (min_rtt 40 ms): after the
// handshake, the sender has two packets a millisecond to send (19.2
// Mbit/s, less than Startup's pacing allows, so every sample is
// app-limited and the bandwidth plateau never counts), the ACKs come back
// a packet at a time, and once the flight is steady (packets sent from
// 100 ms on) every tenth packet is lost (those numbered phase modulo 10),
// declared lost when the third after it is acknowledged. It returns how
// long Startup lasted after the first loss was declared, up to limit.
func startupBehindQueue(t *testing.T, rtt time.Duration, phase int64, limit time.Duration) (*resumeConn, time.Duration) {
	const minRTT = 40 * time.Millisecond
	c := newResumeConn(t, Resume{}) // nothing saved: a connection's own Startup
	c.handshake(minRTT)
	rttStats := congestion.RTTStats{Latest: rtt, Smoothed: rtt, Min: minRTT}
	var flight, unreported []int64 // in flight; arrived lost, not yet declared
	var firstLoss congestion.Time
	lossFrom := c.now.Add(100 * time.Millisecond)
	for c.b.state == startup && (firstLoss == 0 || c.now.Sub(firstLoss) < limit) {
		flight = append(flight, c.send(2)...)
		c.b.OnAppLimited(c.now, c.inflight)
		c.now = c.now.Add(time.Millisecond)
		for len(flight) > 0 && c.now.Sub(c.sent[flight[0]]) >= rtt {
			n := flight[0]
			flight = flight[1:]
			if n%10 == phase && c.sent[n] >= lossFrom {
				unreported = append(unreported, n)
				continue
			}
			var lost []int64
			for len(unreported) > 0 && unreported[0]+3 <= n {
				lost = append(lost, unreported[0])
				unreported = unreported[1:]
			}
			if len(lost) > 0 && firstLoss == 0 {
				firstLoss = c.now
			}
			c.ackNow(rttStats, []int64{n}, lost)
		}
	}
	return c, c.now.Sub(firstLoss)
}

// Startup ends on loss (§5.3.1.3) after two loss rounds in a row behind a
// standing queue lost more than the loss threshold in six ranges or more,
// even when the plateau cannot end it: each loss round is a full round
// trip of recovery. Behind another flow's queue (here 20 ms over min_rtt)
// it ends two round trips after the first loss, with inflight_longterm
// set, whichever packets of each ten are lost; with the same losses and
// no queue they are the path's random loss and Startup goes on. (When the
// exit also asked for recovery still under way at a loss round's end,
// Startup went on for the whole run where the ACKs that declared losses
// never began a packet-timed round: half of the phases here.)
func TestStartupEndsOnLossBehindQueue(t *testing.T) {
	const rtt = 60 * time.Millisecond
	for phase := range int64(10) {
		c, lasted := startupBehindQueue(t, rtt, phase, 2*time.Second)
		if c.b.state == startup {
			t.Errorf("phase %d: still in Startup %v after the first loss; last loss round lost %.3f in %d ranges",
				phase, lasted, c.b.lastRound.lossRate(), c.b.lastRound.lostRanges)
			continue
		}
		if lasted > 2*rtt+10*time.Millisecond {
			t.Errorf("phase %d: Startup lasted %v after the first loss, want two loss rounds (%v)", phase, lasted, 2*rtt)
		}
		if c.b.inflightLongterm == infinite {
			t.Errorf("phase %d: inflight_longterm unset after a loss-ended Startup", phase)
		}

		c, lasted = startupBehindQueue(t, 40*time.Millisecond, phase, 2*time.Second)
		if c.b.state != startup {
			t.Errorf("phase %d: without a queue, random loss ended Startup %v after the first loss", phase, lasted)
		}
	}
}
