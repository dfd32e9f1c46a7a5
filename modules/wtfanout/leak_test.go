package wtfanout

import (
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// Sessions that subscribe, unsubscribe and go away leave nothing behind
// once the channels' linger has passed: no goroutine, no upstream stream.
func TestNoGoroutinesLeftAfterSessions(t *testing.T) {
	o, site, ctx := fixture(t, "linger 20ms")
	idle := func() bool {
		return site.Metric(t, "lastmile_fanout_upstream_connections") == 0 &&
			site.Metric(t, "lastmile_fanout_channels") == 0 &&
			site.Metric(t, "lastmile_fanout_sessions_open") == 0
	}
	// Warm up: the first session starts the listeners' and pools'
	// long-lived goroutines, which the baseline must include.
	warm := dialFanout(t, ctx, site)
	warm.subscribe(ctx, "warm", "")
	testcaddy.Eventually(t, 5*time.Second, "the origin serving the warm-up channel", func() bool { return o.open("warm") == 1 })
	warm.close()
	testcaddy.Eventually(t, 10*time.Second, "the warm-up session and channel gone", func() bool { return idle() && o.open("warm") == 0 })
	runtime.GC()
	baseline := runtime.NumGoroutine()

	for i := range 5 {
		c := dialFanout(t, ctx, site)
		a, b := "a"+strconv.Itoa(i%2), "b"+strconv.Itoa(i)
		esA := c.subscribe(ctx, a, "")
		c.subscribe(ctx, b, "")
		testcaddy.Eventually(t, 5*time.Second, "the origin serving "+a, func() bool { return o.open(a) == 1 })
		o.emit(a, "event x")
		if ev := esA.next(); ev.Data != "event x" {
			t.Fatalf("got %+v", ev)
		}
		c.send(`{"op":"unsubscribe","channel":"` + b + `"}`)
		c.close()
	}
	testcaddy.Eventually(t, 10*time.Second, "no session, channel or upstream stream left", idle)
	for i := range 5 {
		for _, ch := range []string{"a" + strconv.Itoa(i%2), "b" + strconv.Itoa(i)} {
			if n := o.open(ch); n != 0 {
				t.Errorf("the origin still serves %d streams of %s", n, ch)
			}
		}
	}
	const tolerance = 3
	gone := runtime.NumGoroutine()
	var now int
	deadline := time.Now().Add(10 * time.Second)
	for now = runtime.NumGoroutine(); now > baseline+tolerance && time.Now().Before(deadline); now = runtime.NumGoroutine() {
		time.Sleep(20 * time.Millisecond)
	}
	if now > baseline+tolerance {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines, %d before the sessions:\n%s", now, baseline, buf[:runtime.Stack(buf, true)])
	}
	t.Logf("goroutines: %d before the sessions, %d when they were gone, %d at the end", baseline, gone, now)
}
