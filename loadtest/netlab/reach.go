//go:build linux

package netlab

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
)

// Waiting for a server across an emulated link. A TCP connect whose SYN
// the link loses waits for the kernel's SYN retransmissions (1, 3, 7, 15,
// 31, 63 s apart in total), and a Gilbert-Elliott burst advances one packet
// per packet sent: a sparse probe that meets a burst stays in it for about
// BurstLen SYNs, over a minute of backoff. So each attempt here is one SYN
// with its own timeout (a round trip of the path at its slowest), and the
// number of attempts allowed is derived from the path's loss.

// reachFailure is the chance the wait may give up on a server that is up.
const reachFailure = 1e-6

// reachStartup is how long a server may take to start listening.
const reachStartup = 20 * time.Second

// reachBudget is how a reachability probe waits across a link: each
// attempt waits Attempt for the answer; after the server listens, Attempts
// of them get a SYN and its answer through the link's loss, but for a
// chance of reachFailure.
type reachBudget struct {
	Attempt  time.Duration
	Attempts int
}

// newReachBudget derives the budget from the stages a link's packets pass
// (the same in each direction).
func newReachBudget(stages []Impairment) reachBudget {
	// Slowest round trip: both delays, each direction's full jitter (a
	// reordered packet is held back up to one more jitter), and time for the
	// probe's process to start on a loaded machine.
	b := reachBudget{Attempt: 250 * time.Millisecond}
	ok := 1.0 // chance an attempt's SYN and answer both pass the random loss
	for _, im := range stages {
		b.Attempt += 2*im.Delay + 4*im.Jitter
		if im.Loss <= 0 {
			continue
		}
		if im.BurstLen > 1 {
			// A burst ends after each packet with chance 1/BurstLen; each
			// direction may have to wait one out, one SYN (or answer) a try.
			stay := 1 - 1/im.BurstLen
			b.Attempts += 2 * int(math.Ceil(math.Log(reachFailure)/math.Log(stay)))
			continue
		}
		ok *= (1 - im.Loss) * (1 - im.Loss)
	}
	if ok < 1 {
		b.Attempts += int(math.Ceil(math.Log(reachFailure) / math.Log(1-ok)))
	}
	b.Attempts = max(b.Attempts, 1)
	return b
}

// deadline is the longest the wait takes: the server's start, then the
// attempts that get through the loss.
func (b reachBudget) deadline() time.Duration {
	return reachStartup + time.Duration(b.Attempts)*b.Attempt
}

// WaitTCP waits until addr accepts TCP connections from namespace ns,
// across link lk (nil: a path without loss), or until ctx ends. Each
// attempt is one connect bounded by the path's slowest round trip; the
// wait is bounded by the server's start plus what the link's loss needs.
func (l *Lab) WaitTCP(ctx context.Context, ns, addr string, lk *Link) error {
	var stages []Impairment
	if lk != nil {
		stages = lk.stages
	}
	b := newReachBudget(stages)
	deadline := time.Now().Add(b.deadline())
	probe := fmt.Sprintf("exec 3<>/dev/tcp/%s", strings.Replace(addr, ":", "/", 1))
	attempts := 0
	for time.Now().Before(deadline) {
		attempts++
		start := time.Now()
		// timeout(1) ends the connect the kernel would otherwise keep
		// retrying; KILL, as bash waits in connect(2).
		if _, err := l.Output(ns, "timeout", "-s", "KILL", fmt.Sprintf("%.3f", b.Attempt.Seconds()), "bash", "-c", probe); err == nil {
			return nil
		}
		// A refusal (not listening yet) comes back within a round trip:
		// try again at most every 200 ms.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200*time.Millisecond - time.Since(start)):
		}
	}
	return fmt.Errorf("%s not reachable from %s: %d attempts of %v each in %v (the path's loss needs at most %d once the server listens)",
		addr, ns, attempts, b.Attempt, b.deadline(), b.Attempts)
}
