package bbr

import (
	"slices"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// resumeConn drives a controller through a synthetic connection: packets
// of 1200 bytes, ACKs and losses by packet number, a clock that moves only
// when told.
type resumeConn struct {
	t        *testing.T
	b        *BBR
	now      congestion.Time
	next     int64
	inflight int64
	sent     map[int64]congestion.Time
	outcomes []ResumeOutcome
}

const resumeRTT = 350 * time.Millisecond

func newResumeConn(t *testing.T, saved Resume) *resumeConn {
	c := &resumeConn{t: t, now: simEpoch, sent: map[int64]congestion.Time{}}
	saved.Report = func(o ResumeOutcome) { c.outcomes = append(c.outcomes, o) }
	c.b = newBBR(congestion.Conn{InitialMaxDatagramSize: simMSS, Now: func() congestion.Time { return c.now }},
		WithSeed(1), WithResume(saved))
	return c
}

// send sends n packets, or fewer if the window fills; it returns the
// numbers sent.
func (c *resumeConn) send(n int) []int64 {
	var nums []int64
	for range n {
		if !c.b.CanSend(c.inflight) {
			break
		}
		c.inflight += simMSS
		c.b.OnPacketSent(c.now, congestion.Packet{Number: c.next, Bytes: simMSS, SentTime: c.now}, c.inflight, true)
		c.sent[c.next] = c.now
		nums = append(nums, c.next)
		c.next++
	}
	return nums
}

// ack acknowledges acked and declares lost lost, in one event, after
// advancing the clock by d; the RTT sample is d.
func (c *resumeConn) ack(d time.Duration, acked, lost []int64) {
	c.now = c.now.Add(d)
	c.ackNow(congestion.RTTStats{Latest: d, Smoothed: d, Min: d}, acked, lost)
}

// ackNow acknowledges acked and declares lost lost, in one event at the
// clock's time, with the transport's RTT estimates rtt.
func (c *resumeConn) ackNow(rtt congestion.RTTStats, acked, lost []int64) {
	ev := congestion.AckEvent{Now: c.now, PriorInFlight: c.inflight, RTT: rtt}
	for _, n := range acked {
		ev.Acked = append(ev.Acked, congestion.Packet{Number: n, Bytes: simMSS, SentTime: c.sent[n]})
		c.inflight -= simMSS
	}
	for _, n := range lost {
		ev.Lost = append(ev.Lost, congestion.Packet{Number: n, Bytes: simMSS, SentTime: c.sent[n]})
		c.inflight -= simMSS
	}
	ev.BytesInFlight = c.inflight
	c.b.OnAck(ev)
}

// handshake is the first flight and its ACK: the first RTT sample.
func (c *resumeConn) handshake(rtt time.Duration) {
	c.ack(rtt, c.send(3), nil)
}

// sendPageWithoutJump sends more than the window allows and fails unless
// the window stayed Startup's own.
func (c *resumeConn) sendPageWithoutJump() {
	c.t.Helper()
	before := c.b.Info().CongestionWindow
	c.send(1000)
	if got := c.b.Info().CongestionWindow; got != before {
		c.t.Fatalf("cwnd %d, want Startup's %d", got, before)
	}
}

func (c *resumeConn) wantOutcomes(want ...ResumeOutcome) {
	c.t.Helper()
	if !slices.Equal(c.outcomes, want) {
		c.t.Fatalf("outcomes %v, want %v", c.outcomes, want)
	}
}

// The saved window of a 5 Mbit/s, 350 ms path (lte-india): 2 BDP.
var lteIndiaResume = Resume{Cwnd: 2 * 219_000, RTT: resumeRTT}

// Once the first RTT sample matches the saved RTT and the sender fills its
// initial window, the window jumps to half the saved one and the jump is
// paced over a round trip; a round trip later it is validated.
func TestResumeJumpsWhenWindowLimited(t *testing.T) {
	c := newResumeConn(t, lteIndiaResume)
	c.handshake(resumeRTT)
	initial := c.b.Info().CongestionWindow
	first := c.send(1000) // the page: more than the window allows
	jump := lteIndiaResume.Cwnd / 2
	if got := c.b.Info().CongestionWindow; got != jump {
		t.Fatalf("cwnd %d after filling the initial window (%d), want the jump %d", got, initial, jump)
	}
	if got := int64(len(first)) * simMSS; got < jump-simMSS {
		t.Fatalf("sent %d bytes, want the jump's %d", got, jump)
	}
	if rate, want := c.b.Info().PacingRate, toBytes(float64(jump)/resumeRTT.Seconds()); rate < want {
		t.Errorf("pacing rate %d B/s, want at least the jump over one RTT (%d B/s)", rate, want)
	}
	c.wantOutcomes()
	if got := c.b.Model().Resume; got != "unvalidated" {
		t.Errorf("model's resume phase %q, want unvalidated", got)
	}
	// The initial window's ACKs, then the jump's: validated.
	c.ack(resumeRTT, first, nil)
	c.wantOutcomes(ResumeJumped)
	if got := c.b.Model().Resume; got != string(ResumeJumped) {
		t.Errorf("model's resume phase %q, want the outcome %q", got, ResumeJumped)
	}
	if got := c.b.Info().CongestionWindow; got < jump {
		t.Errorf("cwnd %d after a validated jump, want at least %d", got, jump)
	}
}

// A first RTT sample far from the saved one (below half, or 10 times or
// more) means another path: the saved values are ignored and the
// connection starts from its initial window.
func TestResumeIgnoredWhenRTTDiffers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		saved time.Duration
	}{
		{"path now faster", 3 * resumeRTT},
		{"path now slower", resumeRTT / 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newResumeConn(t, Resume{Cwnd: lteIndiaResume.Cwnd, RTT: tc.saved})
			c.handshake(resumeRTT)
			c.sendPageWithoutJump()
			c.wantOutcomes(ResumeRTTChanged)
		})
	}
	t.Run("within bounds", func(t *testing.T) {
		c := newResumeConn(t, Resume{Cwnd: lteIndiaResume.Cwnd, RTT: resumeRTT * 3 / 2})
		c.handshake(resumeRTT)
		c.send(1000)
		if got := c.b.Info().CongestionWindow; got != lteIndiaResume.Cwnd/2 {
			t.Fatalf("cwnd %d, want the jump", got)
		}
	})
}

// A loss while the jump is in flight is Safe Retreat: the window falls to
// what Startup would have without the jump (the initial window plus what
// was acknowledged), not lower, and the pacing rate to BBR's own.
func TestResumeLossInJumpRetreats(t *testing.T) {
	c := newResumeConn(t, lteIndiaResume)
	c.handshake(resumeRTT)
	flight := c.send(1000)
	// Half the flight acknowledged, one packet of it lost.
	half := len(flight) / 2
	c.ack(resumeRTT, flight[:half], []int64{flight[half]})
	c.wantOutcomes(ResumeRetreated)
	normal := c.b.initialCwnd + c.b.rate.delivered
	if got := c.b.Info().CongestionWindow; got != normal {
		t.Fatalf("cwnd %d after Safe Retreat, want the initial window plus what was delivered (%d)", got, normal)
	}
	model := max(startupPacingGain*float64(c.b.initialCwnd)/resumeRTT.Seconds(),
		startupPacingGain*c.b.bw*(100-pacingMarginPercent)/100)
	if got := c.b.Info().PacingRate; got != toBytes(model) {
		t.Errorf("pacing rate %d B/s after Safe Retreat, want BBR's own %d B/s", got, toBytes(model))
	}
}

// lteIndiaLossyResume is lteIndiaResume with the path's random loss
// (3.5%) saved too.
var lteIndiaLossyResume = Resume{Cwnd: lteIndiaResume.Cwnd, RTT: resumeRTT, LossRate: 0.035}

// On a path that loses 3.5% at random, a loss within what that rate
// explains, with the RTT where it was, is not congestion: the connection
// still jumps after it, and the jump is validated despite a loss in it.
func TestResumeRandomLossKeepsJump(t *testing.T) {
	c := newResumeConn(t, lteIndiaLossyResume)
	c.handshake(resumeRTT)
	flight := c.send(1000)
	jump := lteIndiaLossyResume.Cwnd / 2
	if got := c.b.Info().CongestionWindow; got != jump {
		t.Fatalf("cwnd %d, want the jump %d", got, jump)
	}
	// The first 40 packets' ACKs: one lost (2.5%).
	c.ack(resumeRTT, flight[:39], flight[39:40])
	c.wantOutcomes()
	if got, normal := c.b.Info().CongestionWindow, c.b.normalCwnd(); got <= normal {
		t.Fatalf("cwnd %d after a random loss in the jump, want above Safe Retreat's %d", got, normal)
	}
	// The jump's other packets: one more lost; validated.
	rest := flight[40:]
	c.ack(0, append(rest[:5:5], rest[6:]...), rest[5:6])
	c.wantOutcomes(ResumeJumped)

	t.Run("loss before the jump", func(t *testing.T) {
		c := newResumeConn(t, lteIndiaLossyResume)
		nums := c.send(4) // the handshake and the HTML: one packet of 4 lost
		c.ack(resumeRTT, nums[:3], nums[3:])
		c.send(1000)
		if got := c.b.Info().CongestionWindow; got != jump {
			t.Fatalf("cwnd %d, want the jump %d after a random loss in Reconnaissance", got, jump)
		}
	})
}

// A jump that meets a real queue still retreats: a loss with every RTT
// sample a standing queue above the saved RTT, or more loss than the
// path's random loss explains (a queue overflowing), is congestion
// whatever the saved loss rate.
func TestResumeQueueRetreats(t *testing.T) {
	for _, tc := range []struct {
		name string
		rtt  time.Duration // the jump's RTT samples
		lost int           // of the jump's first 40 packets acknowledged
	}{
		{"RTT risen by half, one loss", resumeRTT * 3 / 2, 1},
		{"RTT as saved, a fifth lost", resumeRTT, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newResumeConn(t, lteIndiaLossyResume)
			c.handshake(resumeRTT)
			flight := c.send(1000)
			c.ack(tc.rtt, flight[:40-tc.lost], flight[40-tc.lost:40])
			c.wantOutcomes(ResumeRetreated)
			if normal := c.b.initialCwnd + c.b.rate.delivered; c.b.Info().CongestionWindow != normal {
				t.Errorf("cwnd %d after Safe Retreat, want %d", c.b.Info().CongestionWindow, normal)
			}
		})
	}
	t.Run("no saved loss rate: any loss", func(t *testing.T) {
		c := newResumeConn(t, lteIndiaResume)
		c.handshake(resumeRTT)
		flight := c.send(1000)
		c.ack(resumeRTT, flight[:39], flight[39:40])
		c.wantOutcomes(ResumeRetreated)
	})
	t.Run("saved loss rate capped", func(t *testing.T) {
		c := newResumeConn(t, Resume{Cwnd: lteIndiaResume.Cwnd, RTT: resumeRTT, LossRate: 0.5})
		c.handshake(resumeRTT)
		flight := c.send(1000)
		c.ack(resumeRTT, flight[:30], flight[30:40]) // a quarter lost
		c.wantOutcomes(ResumeRetreated)
	})
}

// The saved values are used only when they help and the path is
// uncongested: congestion before the jump (any loss without a saved loss
// rate; two of four packets with 3.5% saved) or a jump no larger than the
// window leaves the connection on its own Startup.
func TestResumeNotUsed(t *testing.T) {
	for _, tc := range []struct {
		name       string
		saved      Resume
		sent, lost int
	}{
		{"loss before the jump", lteIndiaResume, 3, 1},
		{"loss beyond the saved rate before the jump", lteIndiaLossyResume, 4, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newResumeConn(t, tc.saved)
			nums := c.send(tc.sent)
			c.ack(resumeRTT, nums[:tc.sent-tc.lost], nums[tc.sent-tc.lost:])
			c.sendPageWithoutJump()
			c.wantOutcomes(ResumeNotUsed)
		})
	}
	t.Run("jump below the window", func(t *testing.T) {
		// mobile-ru: 1.1 Mbit/s at 200 ms, a BDP of 27 KB.
		c := newResumeConn(t, Resume{Cwnd: 2 * 27_000, RTT: 200 * time.Millisecond})
		c.handshake(200 * time.Millisecond)
		c.sendPageWithoutJump()
		c.wantOutcomes(ResumeNotUsed)
	})
	t.Run("no RTT sample yet", func(t *testing.T) {
		c := newResumeConn(t, lteIndiaResume)
		c.sendPageWithoutJump()
		c.wantOutcomes()
	})
}

// However large the saved window, the jump is at most maxResumeJump.
func TestResumeJumpCapped(t *testing.T) {
	c := newResumeConn(t, Resume{Cwnd: 1 << 40, RTT: resumeRTT})
	c.handshake(resumeRTT)
	c.send(100_000)
	if got := c.b.Info().CongestionWindow; got != maxResumeJump {
		t.Fatalf("cwnd %d, want the cap %d", got, maxResumeJump)
	}
}

// A connection leaves its window as far as its measured bandwidth backs
// it, and nothing when it measured too little or ended in ProbeRTT; its
// loss rate only when it sent enough to measure one.
func TestObserve(t *testing.T) {
	info := congestion.Info{CongestionWindow: 300_000, BottleneckBandwidth: 300_000, MinRTT: resumeRTT, State: "startup"}
	saved, ok := Observe(info, 193_000, 7_000)
	if want := int64(2 * resumeRTTAllowance * 300_000 * resumeRTT.Seconds()); !ok || saved.Cwnd != want || saved.RTT != resumeRTT {
		t.Fatalf("Observe: %+v %v, want %d (2 BDP at a jittered RTT) %v", saved, ok, want, resumeRTT)
	}
	if saved.LossRate != 0.035 {
		t.Errorf("loss rate %v, want 7 KB of 200 KB (0.035)", saved.LossRate)
	}
	if saved, _ := Observe(info, resumeMinLossVolume*minDatagramSize-1201, 1200); saved.LossRate != 0 {
		t.Errorf("loss rate %v saved from fewer than %d packets, want none", saved.LossRate, resumeMinLossVolume)
	}
	info.CongestionWindow = 100_000
	if saved, _ := Observe(info, 200_000, 0); saved.Cwnd != 100_000 {
		t.Errorf("window below 2 BDP: saved %d, want the window", saved.Cwnd)
	}
	if _, ok := Observe(info, initialCwndPackets*minDatagramSize-1, 0); ok {
		t.Error("saved a connection that delivered less than an initial window")
	}
	info.State = "probe_rtt"
	if _, ok := Observe(info, 200_000, 0); ok {
		t.Error("saved a connection that ended in ProbeRTT")
	}
}

// coldPage simulates a new connection on p: a handshake-sized exchange,
// then a page of pageBytes; it returns the page's time and the controller.
func coldPage(t *testing.T, p path, seed uint64, pageBytes int64, opts ...Option) (time.Duration, *sim, *BBR) {
	t.Helper()
	d, s, b, _ := coldPageFlight(t, p, seed, pageBytes, opts...)
	return d, s, b
}

// Cold page loads like the lab's (190 KB after a handshake), each new
// connection resuming from the one before it: on lte-india the jump saves
// half a round trip at the median (a quarter with the lab's jitter, whose
// luckiest RTT sample makes the saved window smaller), and the path's
// random loss sends few jumps back (Safe Retreat); on
// mobile-ru, whose BDP (27 KB) is below the initial window, nothing is
// jumped and the queue overflows no more than without resuming.
func TestColdPagesResumeFromThePreviousConnection(t *testing.T) {
	const page, loads = 190_000, 15
	for _, tc := range []struct {
		name string
		p    path
		gain time.Duration // the least the resumed median gains on the fresh
	}{
		{"lte-india", path{rate: mbit(5), delay: 175 * time.Millisecond, loss: 0.035}, 175 * time.Millisecond},
		{"lte-india with jitter", path{rate: mbit(5), delay: 175 * time.Millisecond, jitter: 75 * time.Millisecond, loss: 0.035}, 87 * time.Millisecond},
		{"mobile-ru", path{rate: mbit(1.1), delay: 100 * time.Millisecond, loss: 0.006}, -50 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fresh, resumed []time.Duration
			var freshDrops, resumedDrops int64
			outcomes := map[ResumeOutcome]int{}
			var saved *Resume
			for i := range loads {
				seed := uint64(100 + i)
				d, s, _ := coldPage(t, tc.p, seed, page)
				fresh, freshDrops = append(fresh, d), freshDrops+s.stats.overflowDrops
				var opts []Option
				if saved != nil {
					r := *saved
					r.Report = func(o ResumeOutcome) { outcomes[o]++ }
					opts = append(opts, WithResume(r))
				}
				d, s, b := coldPage(t, tc.p, seed, page, opts...)
				resumed, resumedDrops = append(resumed, d), resumedDrops+s.stats.overflowDrops
				if r, ok := Observe(b.Info(), b.rate.delivered, b.rate.lost); ok {
					saved = &r
				}
			}
			t.Logf("%s: fresh median %v, resumed median %v (%v); outcomes %v; queue drops %d fresh, %d resumed; last saved window %d",
				tc.name, median(fresh).Round(time.Millisecond), median(resumed).Round(time.Millisecond), roundAll(resumed),
				outcomes, freshDrops, resumedDrops, saved.Cwnd)
			if median(resumed) > median(fresh)-tc.gain {
				t.Errorf("resumed median %v, want at least %v under the fresh %v", median(resumed), tc.gain, median(fresh))
			}
			if tc.gain > 0 && outcomes[ResumeRetreated]*4 > outcomes[ResumeJumped] {
				t.Errorf("%d jumps retreated, %d validated: random loss read as congestion", outcomes[ResumeRetreated], outcomes[ResumeJumped])
			}
			if resumedDrops > freshDrops {
				t.Errorf("resumed connections lost %d packets to the full queue, fresh ones %d", resumedDrops, freshDrops)
			}
		})
	}
}

// A client whose path slowed since its last connection (lte-india's saved
// values, then 1 Mbit/s behind a 24 KB queue, with the same random loss):
// the jump meets a real queue, overflowing and standing, and retreats as
// under the draft's any-loss rule, and the queue drops no more packets
// than the draft's rule lets it.
func TestResumeOntoSlowerPathRetreats(t *testing.T) {
	const page, loads = 190_000, 10
	slow := path{rate: mbit(1), delay: 175 * time.Millisecond, loss: 0.035, queue: 24_000}
	saved := Resume{Cwnd: 190_000, RTT: 350 * time.Millisecond, LossRate: 0.035}
	draft := saved
	draft.LossRate = 0 // the draft's rule: any loss is congestion
	var drops, draftDrops int64
	outcomes, draftOutcomes := map[ResumeOutcome]int{}, map[ResumeOutcome]int{}
	for i := range loads {
		seed := uint64(200 + i)
		r := saved
		r.Report = func(o ResumeOutcome) { outcomes[o]++ }
		_, s, _ := coldPage(t, slow, seed, page, WithResume(r))
		drops += s.stats.overflowDrops
		r = draft
		r.Report = func(o ResumeOutcome) { draftOutcomes[o]++ }
		_, s, _ = coldPage(t, slow, seed, page, WithResume(r))
		draftDrops += s.stats.overflowDrops
	}
	t.Logf("outcomes %v (draft's rule %v); queue drops %d (draft's rule %d)", outcomes, draftOutcomes, drops, draftDrops)
	if outcomes[ResumeJumped] > draftOutcomes[ResumeJumped] {
		t.Errorf("%d jumps into the slower path validated, %d under the draft's rule", outcomes[ResumeJumped], draftOutcomes[ResumeJumped])
	}
	if drops > draftDrops+draftDrops/10 {
		t.Errorf("queue drops %d, the draft's rule %d", drops, draftDrops)
	}
}
