package wtfanout

import (
	"io"
	"slices"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// otherPath is what the edge answers off the fan-out path: the body names
// the config that runs.
func otherPath(t *testing.T, site *testcaddy.Site) string {
	t.Helper()
	resp, err := site.H3Client(t, nil).Get(site.URL("/other"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body)
}

// A reload that keeps the fan-out's settings keeps its hub: the session,
// its subscription and the one upstream stream carry on, every event
// delivered once and in order.
func TestReloadKeepsSubscriptions(t *testing.T) {
	const options = "replay 16"
	o, site, ctx := fixture(t, options)
	c := dialFanout(t, ctx, site)
	es := c.subscribe(ctx, "feed", "")
	testcaddy.Eventually(t, 5*time.Second, "the origin serving the channel", func() bool { return o.open("feed") == 1 })
	o.emitN("feed", 3)
	es.expect("1", "2", "3")

	testcaddy.Run(t, edgeConfig(site, o.template(), options, "reloaded")) // a reload, as the admin API's POST /load
	if got := otherPath(t, site); got != "reloaded" {
		t.Fatalf("after the reload the edge answers %q, want the new config's body", got)
	}

	o.emitN("feed", 3)
	es.expect("4", "5", "6")
	if n := o.requestCount("feed"); n != 1 {
		t.Errorf("the origin saw %d requests for the channel, want 1", n)
	}
	if n := o.open("feed"); n != 1 {
		t.Errorf("the origin serves %d streams of the channel, want 1", n)
	}

	// A reload that changes the settings starts a new hub; the old one's
	// channels end with status failed, its sessions can no longer
	// subscribe, and a new session resumes on the new hub.
	testcaddy.Run(t, edgeConfig(site, o.template(), "replay 8", "changed"))
	if r := c.reply(); r.Op != "status" || r.Channel != "feed" || r.State != stateFailed {
		t.Fatalf("after a reload with new settings: %+v, want status failed for feed", r)
	}
	testcaddy.Eventually(t, 5*time.Second, "the old hub's upstream stream closed", func() bool { return o.open("feed") == 0 })
	c.send(`{"op":"subscribe","channel":"feed"}`)
	if r := c.reply(); r.Op != "error" || r.Code != codeUnavailable {
		t.Fatalf("subscribing on a session of the old config: %+v, want error unavailable", r)
	}
	// The new hub starts where the old one stopped: its replay buffer
	// (8 of the old 16 kept) and a resume after the old hub's last id;
	// this origin would send its whole log again without Last-Event-ID.
	fresh := dialFanout(t, ctx, site)
	es2 := fresh.subscribe(ctx, "feed", "")
	testcaddy.Eventually(t, 5*time.Second, "the new hub serving the channel", func() bool { return o.open("feed") == 1 })
	o.emitN("feed", 1)
	es2.expect("1", "2", "3", "4", "5", "6", "7")
	if n := o.requestCount("feed"); n != 2 {
		t.Errorf("the origin saw %d requests for the channel, want 2: one per hub", n)
	}
	o.mu.Lock()
	lastIDs := slices.Clone(o.lastIDs)
	o.mu.Unlock()
	if !slices.Equal(lastIDs, []string{"", "6"}) {
		t.Errorf("the origin's requests had Last-Event-ID %q, want the new hub's to resume after 6", lastIDs)
	}
}
