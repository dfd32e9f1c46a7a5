package wtfanout

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// Many sessions on one channel share one origin stream, and each gets
// every event in order.
func TestFanoutOneOriginStreamManySessions(t *testing.T) {
	o, site, ctx := fixture(t, "")
	const sessions, events = 20, 10
	streams := make([]*eventStream, sessions)
	for i := range sessions {
		streams[i] = dialFanout(t, ctx, site).subscribe(ctx, "news", "")
	}
	testcaddy.Eventually(t, 5*time.Second, "the origin serving the channel", func() bool { return o.open("news") == 1 })
	o.emitN("news", events)
	ids := make([]string, events)
	for i := range ids {
		ids[i] = strconv.Itoa(i + 1)
	}
	var wg sync.WaitGroup
	for _, es := range streams {
		wg.Go(func() { es.expect(ids...) })
	}
	wg.Wait()
	if n := o.requestCount("news"); n != 1 {
		t.Fatalf("the origin got %d requests for the channel, want 1", n)
	}
	if got := site.Metric(t, "lastmile_fanout_upstream_connections"); got != 1 {
		t.Errorf("upstream_connections = %v, want 1", got)
	}
}
