//go:build linux

package netlab

import (
	"context"
	"math"
	"net"
	"os"
	"testing"
	"time"
)

// The probe's attempts cover the path's slowest round trip, and there are
// enough of them that a server that listens is missed with a chance of at
// most reachFailure, but not many more.
func TestReachBudgetFollowsThePathsLoss(t *testing.T) {
	clean := newReachBudget(nil)
	if clean.Attempts != 1 || clean.Attempt < 250*time.Millisecond {
		t.Fatalf("lossless path: %+v, want one attempt of at least 250 ms", clean)
	}

	// wifi-bursty: 5% loss in bursts of 6 packets; a burst may have to
	// pass in each direction, one packet per attempt.
	bursty := Impairment{Delay: 5 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05, BurstLen: 6}
	b := newReachBudget([]Impairment{bursty})
	perDirection := float64(b.Attempts / 2)
	stay := 1 - 1/bursty.BurstLen
	if math.Pow(stay, perDirection) > reachFailure || math.Pow(stay, perDirection-1) <= reachFailure {
		t.Fatalf("bursty path: %d attempts; a burst outlasts %v of them with chance %g, want just under %g",
			b.Attempts, perDirection, math.Pow(stay, perDirection), reachFailure)
	}
	if b.Attempt < 2*bursty.Delay+bursty.Jitter {
		t.Fatalf("bursty path: an attempt of %v is shorter than the slowest round trip", b.Attempt)
	}

	// lte-india-congested: 7% independent loss each way, 425 ms, 100 ms jitter.
	lte := Impairment{Delay: 212500 * time.Microsecond, Jitter: 100 * time.Millisecond, Loss: 0.07}
	l := newReachBudget([]Impairment{lte})
	fail := 1 - (1-lte.Loss)*(1-lte.Loss)
	if math.Pow(fail, float64(l.Attempts)) > reachFailure || math.Pow(fail, float64(l.Attempts-1)) <= reachFailure {
		t.Fatalf("lossy path: %d attempts miss with chance %g, want just under %g", l.Attempts, math.Pow(fail, float64(l.Attempts)), reachFailure)
	}
	if l.Attempt < 2*lte.Delay+lte.Jitter {
		t.Fatalf("lossy path: an attempt of %v is shorter than the slowest round trip", l.Attempt)
	}
}

// listenEnv makes the test binary a TCP server (in a lab namespace).
const listenEnv = "NETLAB_TEST_LISTEN"

func TestMain(m *testing.M) {
	if addr := os.Getenv(listenEnv); addr != "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			os.Exit(2)
		}
		for {
			c, err := ln.Accept()
			if err != nil {
				os.Exit(0)
			}
			c.Close()
		}
	}
	os.Exit(m.Run())
}

// A server behind a link that loses packets in long bursts is found: each
// attempt is one SYN with its own timeout, so a burst costs attempts, not
// the kernel's SYN backoff (1, 3, 7, 15, 31 s...), which is how the lab
// once gave up on an edge that was up (wifi-bursty, 20 s).
func TestWaitTCPThroughLossBursts(t *testing.T) {
	lab := newLabAB(t)
	// Half the packets lost, in bursts of 8: most probes meet a burst.
	lk, err := lab.Connect("a", "b", Impairment{Delay: time.Millisecond, Loss: 0.5, BurstLen: 8})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lab.Start("b", []string{listenEnv + "=" + lk.AddrB + ":9000"}, os.Args[0]); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := lab.WaitTCP(context.Background(), "a", lk.AddrB+":9000", lk); err != nil {
		t.Fatalf("%v (the link lost %d and %d packets)", err, lk.AtoB.Lost.Load(), lk.BtoA.Lost.Load())
	}
	t.Logf("reached in %v; the link lost %d of %d packets out and %d of %d back", time.Since(start),
		lk.AtoB.Lost.Load(), lk.AtoB.In.Load(), lk.BtoA.Lost.Load(), lk.BtoA.In.Load())
}
