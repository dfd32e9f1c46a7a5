package wtfanout

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// roundsAbove is how many rounds of connection writers wrote more than
// le events (le a bucket bound).
func roundsAbove(t *testing.T, site *testcaddy.Site, le string) float64 {
	t.Helper()
	return site.Metric(t, `lastmile_fanout_connection_round_writes_count`) - site.Metric(t, `lastmile_fanout_connection_round_writes_bucket{le="`+le+`"}`)
}

// The subscriptions of one QUIC connection are written in one round of
// its writer, so that their frames share packets, and each still gets
// every event in order.
func TestConnectionWriterWritesSessionsTogether(t *testing.T) {
	o, site, ctx := fixture(t, "replay 0")
	const sessions, burst = 8, 20
	client := connectFanout(t, ctx, site, 0)
	streams := make([]*eventStream, sessions)
	for i := range streams {
		streams[i] = dialFanoutOn(t, ctx, site, client).subscribe(ctx, "news", "")
	}
	testcaddy.Eventually(t, 5*time.Second, "the origin serving the channel", func() bool { return o.open("news") == 1 })
	// Once a subscription got an event from the writer, the writer
	// writes it: the next event reaches all in one round.
	o.emitN("news", 1)
	for _, es := range streams {
		es.expect("1")
	}
	before := roundsAbove(t, site, "4")
	o.emitN("news", 1)
	for _, es := range streams {
		es.expect("2")
	}
	testcaddy.Eventually(t, 5*time.Second, "a round writing all 8 sessions", func() bool {
		return roundsAbove(t, site, "4") > before
	})

	o.emitN("news", burst)
	ids := make([]string, burst)
	for i := range ids {
		ids[i] = strconv.Itoa(3 + i)
	}
	var wg sync.WaitGroup
	for _, es := range streams {
		wg.Go(func() { es.expect(ids...) })
	}
	wg.Wait()
}
