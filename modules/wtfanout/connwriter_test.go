package wtfanout

import (
	"strconv"
	"strings"
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

// A session that stops reading, on the same QUIC connection as sessions
// that read, is handed to its own goroutine once a write waits for it:
// the others get every event, in order, at once.
func TestSlowSessionDoesNotSlowItsConnection(t *testing.T) {
	o, site, ctx := fixture(t, "queue 64\n\t\t\treplay 0")
	// 16 KiB stream windows: the slow stream is full after 16 events.
	client := connectFanout(t, ctx, site, 16<<10)
	slow := dialFanoutOn(t, ctx, site, client)
	slow.subscribe(ctx, "ticks", "") // its stream is never read
	fast := make([]*eventStream, 4)
	for i := range fast {
		fast[i] = dialFanoutOn(t, ctx, site, client).subscribe(ctx, "ticks", "")
	}
	testcaddy.Eventually(t, 5*time.Second, "the origin serving the channel", func() bool { return o.open("ticks") == 1 })

	// 1 KiB events are written without waiting for the packer while the
	// client's flow control allows; batches smaller than a queue.
	const events, batch = 320, 32
	data := strings.Repeat("x", 1<<10)
	start := time.Now()
	for sent := 0; sent < events; sent += batch {
		for range batch {
			o.emit("ticks", data)
		}
		var wg sync.WaitGroup
		for _, es := range fast {
			wg.Go(func() {
				for i := sent; i < sent+batch; i++ {
					if ev := es.next(); ev.ID != strconv.Itoa(i+1) {
						t.Errorf("fast subscriber got id %s, want %d", ev.ID, i+1)
					}
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			return
		}
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("fast subscribers took %v", d)
	}
	if r := slow.reply(); r.Op != "missed" || r.Channel != "ticks" || r.Count < 1 {
		t.Fatalf("slow subscriber got %+v, want a missed count", r)
	}
}
