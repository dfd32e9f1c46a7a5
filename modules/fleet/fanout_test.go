package fleet

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/lastmile-edge/lastmile/modules/httpcache"
)

// startFleet runs a NATS server and count edges, each with /obj cached at
// version 1, and moves the origin to version 2.
func startFleet(t *testing.T, count int, extra string) (*natsServer, *origin, []*node) {
	ns := startNATS(t)
	o := startOrigin(t)
	var nodes []*node
	for i := range count {
		n := startNode(t, "n"+string(rune('1'+i)), ns.url(), o, extra)
		n.waitConnected()
		nodes = append(nodes, n)
	}
	warm(t, o, nodes)
	return ns, o, nodes
}

// warm caches version 1 everywhere, then moves the origin on: a node that
// serves v1 afterwards serves it from its cache.
func warm(t *testing.T, o *origin, nodes []*node) {
	t.Helper()
	o.version.Store(1)
	for _, n := range nodes {
		if got := n.get(); got != "v1" {
			t.Fatalf("%s: got %q, want v1", n.name, got)
		}
	}
	o.version.Store(2)
	for _, n := range nodes {
		if got := n.get(); got != "v1" {
			t.Fatalf("%s: got %q from cache, want v1", n.name, got)
		}
	}
}

func decodeResult(t *testing.T, body string) httpcache.FanoutResult {
	t.Helper()
	var res httpcache.FanoutResult
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatalf("decoding %q: %v", body, err)
	}
	return res
}

// A purge accepted by one node reaches every node; with wait_for the
// answer names the nodes that applied it, after which none serves the old
// object.
func TestPurgeReachesEveryNode(t *testing.T) {
	_, _, nodes := startFleet(t, 3, "")
	code, body := nodes[0].purge(`{"urls":["` + objURL + `"],"wait_for":3,"timeout":"10s"}`)
	if code != http.StatusOK {
		t.Fatalf("purge: %d %s", code, body)
	}
	res := decodeResult(t, body)
	if !res.Complete || len(res.Acks) != 3 || res.Seq == 0 {
		t.Fatalf("want 3 acks, got %+v", res)
	}
	for _, a := range res.Acks {
		if a.Purged != 1 || a.Error != "" {
			t.Errorf("ack %+v: want 1 entry purged", a)
		}
	}
	for _, n := range nodes {
		if got := n.get(); got != "v2" {
			t.Errorf("%s: got %q after the purge, want v2", n.name, got)
		}
	}
	// Without wait_for the answer comes once JetStream stored the purge;
	// every node applies it soon after.
	code, body = nodes[1].purge(`{"tags":["none"],"soft":true}`)
	if code != http.StatusOK || !strings.Contains(body, `"seq":2`) {
		t.Fatalf("purge: %d %s", code, body)
	}
	for _, n := range nodes {
		waitFor(t, 10e9, n.name+" applying purge 2", func() bool { return n.metric("lastmile_fleet_purge_applied_total") >= 2 })
	}
	// The same id again is stored once and not applied again.
	for range 2 {
		if code, body := nodes[2].purge(`{"id":"retry-1","all":true}`); code != http.StatusOK {
			t.Fatalf("purge: %d %s", code, body)
		}
	}
	if _, body := nodes[2].purge(`{"id":"retry-1","all":true}`); !strings.Contains(body, `"duplicate":true`) {
		t.Fatalf("a repeated id: want duplicate, got %s", body)
	}
}

// Fewer acknowledgements than asked for within the timeout: 504 with who
// did acknowledge.
func TestWaitForTimesOut(t *testing.T) {
	_, _, nodes := startFleet(t, 2, "")
	code, body := nodes[0].purge(`{"urls":["` + objURL + `"],"wait_for":3,"timeout":"300ms"}`)
	if code != http.StatusGatewayTimeout {
		t.Fatalf("want 504, got %d %s", code, body)
	}
	if res := decodeResult(t, body); res.Complete || len(res.Acks) != 2 {
		t.Fatalf("want 2 of 3 acks, got %+v", res)
	}
}

// With NATS down a purge is refused with a clear 503, not half-applied;
// when NATS is back purges flow again.
func TestNATSDownRefusesPurges(t *testing.T) {
	ns, _, nodes := startFleet(t, 2, "")
	ns.stop()
	waitFor(t, 10e9, "disconnect", func() bool { return nodes[0].metric("lastmile_fleet_connected") == 0 })
	code, body := nodes[0].purge(`{"urls":["` + objURL + `"]}`)
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "not connected to NATS") || !strings.Contains(body, "refused, not queued") {
		t.Fatalf("want a 503 that says NATS is down, got %d %s", code, body)
	}
	if got := nodes[0].get(); got != "v1" {
		t.Fatalf("a refused purge changed the cache: got %q", got)
	}
	ns.start()
	for _, n := range nodes {
		n.waitConnected()
	}
	waitFor(t, 20e9, "a purge accepted and acknowledged by both", func() bool {
		code, body := nodes[0].purge(`{"urls":["` + objURL + `"],"wait_for":2,"timeout":"2s"}`)
		return code == http.StatusOK && decodeResult(t, body).Complete
	})
	for _, n := range nodes {
		if got := n.get(); got != "v2" {
			t.Errorf("%s: got %q, want v2", n.name, got)
		}
	}
}

// Purge API errors of the fleet fields.
func TestPurgeRequestFleetFields(t *testing.T) {
	_, _, nodes := startFleet(t, 1, "")
	for body, want := range map[string]string{
		`{"all":true,"id":"a b"}`:      `id \"a b\"`,
		`{"all":true,"wait_for":-1}`:   "wait_for -1",
		`{"all":true,"wait_for":5000}`: "wait_for 5000",
		`{"all":true,"timeout":"2h"}`:  "timeout 2h0m0s",
	} {
		code, got := nodes[0].purge(body)
		if code != http.StatusBadRequest || !strings.Contains(got, want) {
			t.Errorf("%s: want 400 mentioning %q, got %d %s", body, want, code, got)
		}
	}
}
