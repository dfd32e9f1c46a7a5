package bbr

import "github.com/lastmile-edge/lastmile/internal/congestion"

// BBR.min_rtt and ProbeRTT (§5.3.4, §5.5.7).

// updateMinRTT is UpdateMinRTT (§5.3.4.3): probe_rtt_min_delay is the
// least RTT of the last ProbeRTTInterval (5 s), min_rtt that of the last
// MinRTTFilterLen (10 s). The first sample after an idle period refreshes
// probe_rtt_min_delay as ProbeRTT's would: the idle period drained the
// queue as ProbeRTT does (Chromium's bbr2 likewise takes a fresh sample
// for an expired one). The draft only skips ProbeRTT on that first ACK, so
// a kept connection whose 5 s ran out a moment later cut its window to half
// the BDP in the middle of a page (mobile-ru's qlog: 5 of 21 kept pages,
// 220-580 ms each in ProbeRTT at a 1.1 Mbit/s link's pace).
func (b *BBR) updateMinRTT(now congestion.Time) {
	b.probeRTTExpired = now.Sub(b.probeRTTMinStamp) > probeRTTInterval
	refresh := b.probeRTTExpired || (b.idleRestart && b.rs.delivered > 0)
	if rtt := b.rs.rtt; rtt >= 0 && (rtt < b.probeRTTMinDelay || refresh) {
		b.probeRTTMinDelay = rtt
		b.probeRTTMinStamp = now
	}
	minRTTExpired := now.Sub(b.minRTTStamp) > minRTTFilterLen
	if b.probeRTTMinDelay < b.minRTT || minRTTExpired {
		b.minRTT = b.probeRTTMinDelay
		b.minRTTStamp = b.probeRTTMinStamp
	}
}

// checkProbeRTT is CheckProbeRTT: ProbeRTT starts when the 5-second
// minimum has not been refreshed, unless the connection is just back from
// idle, which drained the queue as well as ProbeRTT would.
func (b *BBR) checkProbeRTT(now congestion.Time) {
	if b.state != probeRTT && b.probeRTTExpired && !b.idleRestart {
		b.enterProbeRTT()
		b.saveCwnd()
		b.probeRTTDoneSet = false
		b.ackPhase = acksProbeStopping
		b.startRound()
	}
	if b.state == probeRTT {
		b.handleProbeRTT(now)
	}
	if b.rs.delivered > 0 {
		b.idleRestart = false
	}
}

func (b *BBR) enterProbeRTT() {
	b.state = probeRTT
	b.pacingGain = 1
	b.cwndGain = probeRTTCwndGain
}

// handleProbeRTT is HandleProbeRTT: hold inflight at ProbeRTTCwnd for
// ProbeRTTDuration (200 ms) and at least one round.
func (b *BBR) handleProbeRTT(now congestion.Time) {
	// The low rate of ProbeRTT says nothing about the path.
	b.rate.markAppLimited(b.inflight)
	if !b.probeRTTDoneSet && b.inflight <= b.probeRTTCwnd() {
		b.probeRTTDoneStamp = now.Add(probeRTTDuration)
		b.probeRTTDoneSet = true
		b.probeRTTRoundDone = false
		b.startRound()
	} else if b.probeRTTDoneSet {
		if b.roundStart {
			b.probeRTTRoundDone = true
		}
		if b.probeRTTRoundDone {
			b.checkProbeRTTDone(now)
		}
	}
}

// checkProbeRTTDone is CheckProbeRTTDone.
func (b *BBR) checkProbeRTTDone(now congestion.Time) {
	if b.probeRTTDoneSet && now > b.probeRTTDoneStamp {
		b.probeRTTMinStamp = now // schedule the next ProbeRTT
		b.restoreCwnd()
		b.exitProbeRTT(now)
	}
}

// exitProbeRTT is ExitProbeRTT (§5.3.4.4): inflight is below the BDP
// already, so ProbeBW resumes in CRUISE with a fresh probing clock.
func (b *BBR) exitProbeRTT(now congestion.Time) {
	b.resetShortTermModel()
	if b.fullBwReached {
		b.startProbeBWDown(now)
		b.startProbeBWCruise()
	} else {
		b.enterStartup()
	}
}

// probeRTTCwnd is ProbeRTTCwnd (§5.6.4.5): half the BDP, at least
// BBR.MinPipeCwnd.
func (b *BBR) probeRTTCwnd() int64 {
	return max(b.bdpMultiple(b.bw, probeRTTCwndGain), b.minPipeCwnd())
}
