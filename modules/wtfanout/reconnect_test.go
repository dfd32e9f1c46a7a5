package wtfanout

import (
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// When the origin drops the stream the edge reconnects with
// Last-Event-ID, tells subscribers, and delivers each event once, in
// order, even from an origin that replays everything on reconnect.
func TestReconnectAfterOriginDrop(t *testing.T) {
	for _, careless := range []bool{false, true} {
		name := "resuming origin"
		if careless {
			name = "origin ignoring Last-Event-ID"
		}
		t.Run(name, func(t *testing.T) {
			o, site, ctx := fixture(t, "reconnect 10ms 50ms")
			o.ignoreLastEventID = careless
			c := dialFanout(t, ctx, site)
			es := c.subscribe(ctx, "feed", "")
			testcaddy.Eventually(t, 5*time.Second, "the origin serving the channel", func() bool { return o.open("feed") == 1 })
			o.emitN("feed", 3)
			es.expect("1", "2", "3")
			reconnects := site.Metric(t, "lastmile_fanout_upstream_reconnects_total")

			o.dropAll("feed")
			if r := c.reply(); r.Op != "status" || r.State != stateReconnecting {
				t.Fatalf("after the drop: %+v, want status reconnecting", r)
			}
			if r := c.reply(); r.Op != "status" || r.State != stateLive {
				t.Fatalf("after the reconnect: %+v, want status live", r)
			}
			o.emitN("feed", 2)
			es.expect("4", "5")
			o.mu.Lock()
			lastID := o.lastIDs[len(o.lastIDs)-1]
			o.mu.Unlock()
			if lastID != "3" {
				t.Errorf("reconnect sent Last-Event-ID %q, want 3", lastID)
			}
			if got := site.Metric(t, "lastmile_fanout_upstream_reconnects_total") - reconnects; got < 1 {
				t.Errorf("reconnects grew by %v", got)
			}
			if careless && site.Metric(t, `lastmile_fanout_events_dropped_total{reason="duplicate"}`) < 3 {
				t.Error("the replayed events were not counted as duplicates")
			}
		})
	}
}
