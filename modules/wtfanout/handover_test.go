package wtfanout

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/sseorigin"
	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// liveOrigin is the site's real SSE origin (internal/sseorigin), noting
// each request's Last-Event-ID.
type liveOrigin struct {
	*sseorigin.Origin
	srv *httptest.Server

	mu      sync.Mutex
	lastIDs []string
}

func startLiveOrigin(t *testing.T) *liveOrigin {
	t.Helper()
	o := &liveOrigin{Origin: sseorigin.New()}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.lastIDs = append(o.lastIDs, r.Header.Get("Last-Event-ID"))
		o.mu.Unlock()
		o.Origin.ServeHTTP(w, r)
	}))
	t.Cleanup(o.srv.Close)
	return o
}

func (o *liveOrigin) template() string { return o.srv.URL + "/events/{channel}" }

func (o *liveOrigin) requests() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.lastIDs)
}

// publish publishes events from..to on channel as the tests' clients
// expect them: id n, data "event n".
func (o *liveOrigin) publish(channel string, from, to int) {
	for n := from; n <= to; n++ {
		if e := o.Publish(channel, "update", "event "+strconv.Itoa(n)); e.ID != strconv.Itoa(n) {
			panic(fmt.Sprintf("the origin numbered event %d %s", n, e.ID))
		}
	}
}

// A reload that changes the settings starts a new hub, which resumes the
// origin's stream after the last event the old hub saw: a subscriber
// that moves across with its last id gets what was published in between
// once, and a new subscriber the old hub's replay.
func TestReloadWithNewSettingsResumesUpstream(t *testing.T) {
	o := startLiveOrigin(t)
	site := testcaddy.NewSite(t)
	testcaddy.Run(t, edgeConfig(site, o.template(), "replay 16", "first"))
	ctx := fixtureContext(t)

	c := dialFanout(t, ctx, site)
	es := c.subscribe(ctx, "feed", "")
	testcaddy.Eventually(t, 5*time.Second, "the origin serving the channel", func() bool { return o.Open() == 1 })
	o.publish("feed", 1, 3)
	es.expect("1", "2", "3")

	testcaddy.Run(t, edgeConfig(site, o.template(), "replay 8", "changed"))
	if r := c.reply(); r.Op != "status" || r.Channel != "feed" || r.State != stateFailed {
		t.Fatalf("after a reload with new settings: %+v, want status failed for feed", r)
	}
	testcaddy.Eventually(t, 5*time.Second, "the old hub's upstream stream closed", func() bool { return o.Open() == 0 })
	o.publish("feed", 4, 5) // while no hub has the channel

	moved := dialFanout(t, ctx, site)
	es2 := moved.subscribe(ctx, "feed", "3")
	es2.expect("4", "5")
	o.publish("feed", 6, 6)
	es2.expect("6")

	late := dialFanout(t, ctx, site)
	late.subscribe(ctx, "feed", "").expect("1", "2", "3", "4", "5", "6")

	if got := o.requests(); !slices.Equal(got, []string{"", "3"}) {
		t.Errorf("the origin's requests had Last-Event-ID %q, want the new hub's to resume after 3", got)
	}
	if n := o.Opened(); n != 2 {
		t.Errorf("the origin opened %d streams, want 2: one per hub", n)
	}
}

// While two hubs run on the same upstream channel (during a reload, or
// two fan-out paths with different settings), a channel starting in one
// resumes where the other is, not from the origin's start.
func TestNewHubResumesWhereRunningHubIs(t *testing.T) {
	o := startLiveOrigin(t)
	site := testcaddy.NewSite(t)
	testcaddy.Run(t, twoPathsConfig(site, o.template()))
	ctx := fixtureContext(t)

	a := dialFanout(t, ctx, site)
	esA := a.subscribe(ctx, "feed", "")
	testcaddy.Eventually(t, 5*time.Second, "the origin serving the channel", func() bool { return o.Open() == 1 })
	o.publish("feed", 1, 4)
	esA.expect("1", "2", "3", "4")

	b := dialFanoutWindow(t, ctx, site, "/live2", 0)
	esB := b.subscribe(ctx, "feed", "")
	esB.expect("3", "4") // replay 2 of the running hub's kept events
	testcaddy.Eventually(t, 5*time.Second, "the second hub's upstream stream", func() bool { return o.Open() == 2 })
	o.publish("feed", 5, 5)
	esA.expect("5")
	esB.expect("5")
	if got := o.requests(); !slices.Equal(got, []string{"", "4"}) {
		t.Errorf("the origin's requests had Last-Event-ID %q, want the second hub's to resume after 4", got)
	}
}

// twoPathsConfig fans upstream out on /live (replay 16) and /live2
// (replay 2): two hubs.
func twoPathsConfig(site *testcaddy.Site, upstream string) string {
	return siteConfig(site, fmt.Sprintf(`
	webtransport /live {
		session fanout %s {
			replay 16
		}
	}
	webtransport /live2 {
		session fanout %s {
			replay 2
		}
	}`, upstream, upstream))
}
