package quichook

import (
	"testing"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// spuriousRecorder is a recorder that is also told of spurious losses.
type spuriousRecorder struct {
	recorder
	spurious []int64
}

func (r *spuriousRecorder) OnSpuriousLoss(_ congestion.Time, packetNumber int64, _ congestion.Time) {
	r.spurious = append(r.spurious, packetNumber)
}

// The patched quic-go looks for OnSpuriousLoss on the controller the
// factory returned, which is the observing wrapper: it must pass the
// report on (it did not, so BBR's undo never ran in the edge), and a
// controller without the method must not break it.
func TestSpuriousLossReachesController(t *testing.T) {
	rec := &spuriousRecorder{}
	cc := New("recorder", func(congestion.Conn) congestion.Controller { return rec }, false)
	ctrl := cc.factory(1200, func() int64 { return 0 }, nil)
	s, ok := ctrl.(wireSpuriousLossController)
	if !ok {
		t.Fatal("the factory's controller does not take spurious-loss reports")
	}
	s.OnSpuriousLoss(5, 7, 3)
	if len(rec.spurious) != 1 || rec.spurious[0] != 7 {
		t.Errorf("controller told of spurious losses %v, want [7]", rec.spurious)
	}
	plain := New("plain", func(congestion.Conn) congestion.Controller { return &recorder{} }, false)
	plain.factory(1200, func() int64 { return 0 }, nil).(wireSpuriousLossController).OnSpuriousLoss(5, 7, 3)
}
