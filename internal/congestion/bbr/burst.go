package bbr

// Loss in bursts. Radio links lose packets in runs: a Wi-Fi retry limit
// or a fade takes several consecutive packets, then none for a while (the
// lab's wifi-bursty draws runs of 6 on average at 5% loss). Judged per
// packet, one such run in a round of a few dozen packets is a 10-30% loss
// rate, above any threshold that still sees a queue overflow (lossThreshold
// caps at 15%), so each run cut the short-term model by BBR.Beta and, in a
// probe, inflight_longterm; on a kept connection the cuts added up from
// page to page until the next bandwidth probe (docs/results/quic-cc.md:
// the edge's window fell from 200 KB to 36 KB over 16 pages with the RTT
// at its minimum throughout). Linux's TCP BBR (v1, which the edge's TCP
// runs) does not lower its model on loss at all.
//
// What separates a run of random loss from congestion is the number of
// loss events and their length, not the number of lost packets: a queue
// overflowing under a sender faster than the bottleneck, or under another
// flow's sawtooth, drops packets all along the flight, mostly one at a
// time (each arrival finding the queue full); a random run is one event
// however long. So where the path's random losses come in runs (mean run
// of minRandomRun packets or more, measured like the random loss rate
// itself from rounds that cannot have overflowed a queue), a loss made of
// runs as long as the path's, and no more of them than its random loss
// events explain, is not read as congestion. On a path whose random
// losses are independent (every lost packet its own event) or that has no
// random loss, nothing changes.

// minRandomRun is the mean run of random losses, in packets, from which
// the path counts as losing packets in runs.
const minRandomRun = 2

// lossesComeInRuns reports whether the path's random losses come in runs
// (a mean run of minRandomRun packets or more).
func (b *BBR) lossesComeInRuns() bool {
	return b.randomLossEvents > 0 && b.randomLoss >= minRandomRun*b.randomLossEvents
}

// lossIsRandomRuns reports whether lost bytes in events loss events over
// volume bytes are explained by the path's random runs of loss: runs of
// minRandomRun packets or more on average (a queue overflowing under paced
// senders drops packets one at a time), no more of them than the path's
// random loss events explain.
func (b *BBR) lossIsRandomRuns(lost, events, volume int64) bool {
	if events <= 0 || !b.lossesComeInRuns() {
		return false
	}
	run := float64(lost) / float64(events*b.smss)
	return run >= minRandomRun && !b.tooManyLossEvents(events, volume)
}

// updateRandomLossEvents follows updateRandomLoss for loss events: a
// moving average, with updateRandomLoss's gain, of the loss events per
// packet of the same queue-free rounds.
func (b *BBR) updateRandomLossEvents(r *lossRound, gain float64) {
	packets := float64(r.lost+r.delivered) / float64(b.smss)
	b.randomLossEvents += (float64(r.lostRanges)/packets - b.randomLossEvents) * gain
}

// tooManyLossEvents reports whether events loss events in volume bytes
// are more than the path's random loss events explain. Where losses do
// not come in runs, events and lost packets are nearly the same count, so
// the loss rate alone decides.
func (b *BBR) tooManyLossEvents(events, volume int64) bool {
	if !b.lossesComeInRuns() {
		return true
	}
	return float64(events*b.smss) > float64(volume)*b.explainedLossRate(b.randomLossEvents, volume)
}
