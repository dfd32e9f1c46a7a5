package wtfanout

import (
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// A late joiner gets the last `replay` events, then live ones; a client
// that resumes gets only what it has not seen.
func TestReplayAndResume(t *testing.T) {
	o, site, ctx := fixture(t, "replay 3")
	first := dialFanout(t, ctx, site).subscribe(ctx, "scores", "")
	testcaddy.Eventually(t, 5*time.Second, "the origin serving the channel", func() bool { return o.open("scores") == 1 })
	o.emitN("scores", 5)
	first.expect("1", "2", "3", "4", "5")

	late := dialFanout(t, ctx, site).subscribe(ctx, "scores", "")
	resumed := dialFanout(t, ctx, site).subscribe(ctx, "scores", "4")
	stale := dialFanout(t, ctx, site).subscribe(ctx, "scores", "1") // no longer kept: all kept
	o.emitN("scores", 1)
	late.expect("3", "4", "5", "6")
	resumed.expect("5", "6")
	stale.expect("3", "4", "5", "6")
	if n := o.requestCount("scores"); n != 1 {
		t.Fatalf("origin requests = %d, want 1", n)
	}
}
