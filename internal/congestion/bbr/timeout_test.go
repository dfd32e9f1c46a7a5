package bbr

import (
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// Two probe timeouts in a row without an ACK between them are the draft's
// retransmission timeout (§5.6.4.4) and cut the window to what is in flight
// plus a packet; but not before the first RTT sample, when the transport's
// timer ran on its initial RTT guess: on a 425 ms path a new connection's
// handshake probes fire at 200 and 400 ms, before any ACK can return.
func TestTimeoutsBeforeFirstRTTSampleKeepWindow(t *testing.T) {
	var now congestion.Time
	b := newBBR(congestion.Conn{InitialMaxDatagramSize: 1200, Now: func() congestion.Time { return now }}, WithSeed(1))
	var inflight int64
	send := func(n int64) {
		for pn := n; pn < n+4; pn++ {
			inflight += 1200
			b.OnPacketSent(now, congestion.Packet{Number: pn, Bytes: 1200, SentTime: now}, inflight, true)
		}
	}
	send(0) // the server's first flight
	now += congestion.Time(200 * time.Millisecond)
	b.OnRetransmissionTimeout(true) // Initial probe
	now += congestion.Time(200 * time.Millisecond)
	b.OnRetransmissionTimeout(true) // Handshake probe
	if got := b.Info().CongestionWindow; got != b.initialCwnd {
		t.Fatalf("cwnd %d after the handshake's probes, want the initial %d", got, b.initialCwnd)
	}

	// The first ACK, with an RTT sample of 425 ms: from now on timeouts
	// ran on the path's RTT.
	now += congestion.Time(25 * time.Millisecond)
	inflight -= 1200
	b.OnAck(congestion.AckEvent{Now: now, PriorInFlight: inflight + 1200, BytesInFlight: inflight,
		Acked: []congestion.Packet{{Number: 0, Bytes: 1200}},
		RTT:   congestion.RTTStats{Latest: 425 * time.Millisecond, Smoothed: 425 * time.Millisecond, Min: 425 * time.Millisecond}})
	send(4)
	cwnd := b.Info().CongestionWindow
	now += congestion.Time(1500 * time.Millisecond)
	b.OnRetransmissionTimeout(true)
	if got := b.Info().CongestionWindow; got != cwnd {
		t.Fatalf("cwnd %d after one timeout, want %d (a PTO is not a loss)", got, cwnd)
	}
	now += congestion.Time(3 * time.Second)
	b.OnRetransmissionTimeout(true)
	if got, want := b.Info().CongestionWindow, inflight+1200; got != want {
		t.Errorf("cwnd %d after two timeouts in a row, want in flight plus a packet (%d)", got, want)
	}
}
