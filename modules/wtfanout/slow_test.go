package wtfanout

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// A subscriber that never reads fills only its own queue: the others get
// every event at once, and the slow one is told what it missed.
func TestSlowConsumerDoesNotSlowOthers(t *testing.T) {
	o, site, ctx := fixture(t, "queue 64\n\t\t\treplay 0")
	slow := dialFanoutWindow(t, ctx, site, "/live", 64<<10)
	slow.subscribe(ctx, "ticks", "") // its stream is never read
	fast := make([]*eventStream, 5)
	for i := range fast {
		fast[i] = dialFanout(t, ctx, site).subscribe(ctx, "ticks", "")
	}
	testcaddy.Eventually(t, 5*time.Second, "the origin serving the channel", func() bool { return o.open("ticks") == 1 })
	missed := site.Metric(t, `lastmile_fanout_events_missed_total{transport="webtransport"}`)

	// The slow session's 64 KiB stream window fills after 16 events of
	// 4 KiB, then its queue.
	fastGetEveryEvent(t, o, fast, strings.Repeat("x", 4<<10))
	r := slow.reply()
	if r.Op != "missed" || r.Channel != "ticks" || r.Count < 1 {
		t.Fatalf("slow subscriber got %+v, want a missed count", r)
	}
	testcaddy.Eventually(t, 5*time.Second, "missed events counted", func() bool {
		return site.Metric(t, `lastmile_fanout_events_missed_total{transport="webtransport"}`) > missed
	})
}

// A session that stops reading, on the same QUIC connection as sessions
// that read, is handed to its own goroutine once a write waits for it
// (connwriter.go): the others get every event, in order, at once.
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
	// client's flow control allows.
	fastGetEveryEvent(t, o, fast, strings.Repeat("x", 1<<10))
	if r := slow.reply(); r.Op != "missed" || r.Channel != "ticks" || r.Count < 1 {
		t.Fatalf("slow subscriber got %+v, want a missed count", r)
	}
}

// fastGetEveryEvent emits 320 events of data on ticks, in batches the fast
// subscribers read at once, each smaller than a queue, and checks that
// they get every one, in order, within 10 s.
func fastGetEveryEvent(t *testing.T, o *origin, fast []*eventStream, data string) {
	t.Helper()
	const events, batch = 320, 32
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
			t.FailNow()
		}
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("fast subscribers took %v", d)
	}
}

// With overflow close, the slow subscription is ended instead.
func TestOverflowClose(t *testing.T) {
	o, site, ctx := fixture(t, "queue 4\n\t\t\treplay 0\n\t\t\toverflow close")
	slow := dialFanoutWindow(t, ctx, site, "/live", 64<<10)
	slow.subscribe(ctx, "ticks", "")
	testcaddy.Eventually(t, 5*time.Second, "the origin serving the channel", func() bool { return o.open("ticks") == 1 })
	big := string(make([]byte, 32<<10))
	for range 200 {
		o.emit("ticks", big)
	}
	if r := slow.reply(); r.Op != "error" || r.Code != codeOverflow {
		t.Fatalf("got %+v, want error overflow", r)
	}
	testcaddy.Eventually(t, 5*time.Second, "the overflow counted", func() bool {
		return site.Metric(t, `lastmile_fanout_subscriptions_ended_total{reason="overflow"}`) >= 1
	})
}
