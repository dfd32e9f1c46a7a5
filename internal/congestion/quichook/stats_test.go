package quichook

import (
	"testing"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// staged is a recorder whose state the test sets.
type staged struct {
	recorder
	state string
}

func (s *staged) Info() congestion.Info { return congestion.Info{State: s.state} }

// An ACK reaches the controller stamped with its packet's receive time,
// which may precede the last event published (the factory's own now, a
// packet sent meanwhile). The time per state and the busy time must never
// go negative: the edge adds them to Prometheus counters when the
// connection ends, and a counter that decreases panics (it crashed an
// edge in CI).
func TestStatsNeverGoBackInTime(t *testing.T) {
	ctrl := &staged{state: "startup"}
	cc := New("staged", func(congestion.Conn) congestion.Controller { return ctrl }, false)
	clock := int64(1000)
	o := cc.factory(1200, func() int64 { return clock }, nil)
	o.OnPacketSent(1500, wirePacket{Number: 1, Bytes: 1200, SentTime: 1500}, 1200, true)
	ctrl.state = "drain"
	// Received at 800, before the factory's 1000 and the send at 1500.
	o.OnAck(wireAckEvent{Now: 800, PriorInFlight: 1200, BytesInFlight: 0,
		Acked: []wirePacket{{Number: 1, Bytes: 1200, SentTime: 1500}}})
	clock = 900
	st := cc.Stats()
	for state, d := range st.StateTime {
		if d < 0 {
			t.Errorf("%s: %v", state, d)
		}
	}
	if st.Busy < 0 {
		t.Errorf("busy %v", st.Busy)
	}
	if st.State != "drain" {
		t.Errorf("state %q, want drain", st.State)
	}
}
