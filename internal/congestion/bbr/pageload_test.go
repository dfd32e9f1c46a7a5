package bbr

import (
	"slices"
	"testing"
	"time"
)

// Page loads over a kept connection on a link like the lab's lte-india
// (5 Mbit/s, 350 ms RTT, 3.5% random loss): ten 1 MB responses, 3 s apart.
// With BBR each takes about the best any sender can do: the page and its
// retransmissions at the link rate, a round trip, and one more to detect
// and repair the losses of the last flight. NewReno, cut by every loss and
// growing one packet per round trip, takes ten times as long. The medians
// are logged.
func TestKeptConnectionPageLoadsOnLossyLink(t *testing.T) {
	for _, jitter := range []time.Duration{0, 75 * time.Millisecond} { // the lab's lte-india has 75 ms
		p := path{rate: mbit(5), delay: 175 * time.Millisecond, jitter: jitter, loss: 0.035}
		const page, loads, gap = 1_000_000, 10, 3 * time.Second
		loadTimes := func(cc func(*network) *sim) []time.Duration {
			n := newNetwork(p, 11)
			s := cc(n)
			var times []time.Duration
			for range loads {
				start, target := s.elapsed(), s.stats.delivered+page
				s.send(page)
				if !s.runUntil(func() bool { return s.stats.delivered >= target }, time.Minute) {
					t.Fatal("a page load did not finish in a minute")
				}
				times = append(times, s.elapsed()-start)
				s.run(gap)
			}
			return times
		}
		bbrTimes := loadTimes(func(n *network) *sim { s, _ := n.addBBR(11); return s })
		renoTimes := loadTimes(func(n *network) *sim { return n.addFlow(newReno(simMSS)) })
		// Two round trips, each up to jitter/2 longer per direction.
		ideal := time.Duration(float64(page)/(p.rate*(1-p.loss))*float64(time.Second)) + 2*(p.minRTT()+jitter/2)
		bbrMedian, renoMedian := median(bbrTimes), median(renoTimes)
		t.Logf("1 MB over a kept lte-india connection, jitter %v, ideal %v: BBR median %v (first %v, all %v); NewReno median %v (first %v)",
			jitter, ideal.Round(time.Millisecond), bbrMedian.Round(time.Millisecond), bbrTimes[0].Round(time.Millisecond),
			roundAll(bbrTimes), renoMedian.Round(time.Millisecond), renoTimes[0].Round(time.Millisecond))
		if bbrMedian > ideal*115/100 {
			t.Errorf("jitter %v: BBR median %v, want within 15%% of %v", jitter, bbrMedian, ideal)
		}
		if bbrMedian*5 > renoMedian {
			t.Errorf("jitter %v: BBR median %v not under a fifth of NewReno's %v", jitter, bbrMedian, renoMedian)
		}
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(10 * time.Millisecond)
	}
	return out
}
