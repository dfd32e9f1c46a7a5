package httpcache

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"time"
)

// PurgeFanout carries purges to every node of a fleet (the fleet app
// registers one). With a fanout the purge API applies nothing itself: the
// purge goes through the fanout's ordered log and every node, this one
// included, applies it from there, so all nodes apply purges in one order.
type PurgeFanout interface {
	// Publish makes req durable for every node, then waits up to
	// req.Timeout for req.WaitFor nodes to say they applied it. An error
	// that is a caddy.APIError carries its status (503 when the log is
	// unreachable).
	Publish(ctx context.Context, req PurgeRequest) (*FanoutResult, error)
}

// FanoutResult is the purge API's answer when a fleet carries the purge.
type FanoutResult struct {
	ID        string `json:"id"`
	Stream    string `json:"stream"`
	Seq       uint64 `json:"seq"`
	Duplicate bool   `json:"duplicate,omitempty"` // the id was published before; nodes applied it then
	WaitFor   int    `json:"wait_for,omitempty"`
	// Acks are the nodes that applied the purge within the timeout.
	Acks []NodeAck `json:"acks,omitempty"`
	// Complete is false when fewer than WaitFor nodes acknowledged in time
	// (the purge is still durable and will reach the others).
	Complete bool `json:"complete"`
}

// NodeAck is one node's acknowledgement of a purge it applied.
type NodeAck struct {
	Node   string `json:"node"`
	Seq    uint64 `json:"seq"`
	Purged int    `json:"purged"`
	Error  string `json:"error,omitempty"`
}

var fanoutMu sync.Mutex
var fanout PurgeFanout

// RegisterPurgeFanout makes the purge API publish through f. A reload
// registers the new config's fanout before the old one unregisters.
func RegisterPurgeFanout(f PurgeFanout) {
	fanoutMu.Lock()
	defer fanoutMu.Unlock()
	fanout = f
}

// UnregisterPurgeFanout removes f if it is still the registered one.
func UnregisterPurgeFanout(f PurgeFanout) {
	fanoutMu.Lock()
	defer fanoutMu.Unlock()
	if fanout == f {
		fanout = nil
	}
}

func currentFanout() PurgeFanout {
	fanoutMu.Lock()
	defer fanoutMu.Unlock()
	return fanout
}

// Bounds of a fleet purge request: ids go into NATS subjects, so they are
// one subject token; a waiting request holds an admin connection.
const (
	maxWaitFor     = 1000
	maxWaitTimeout = time.Minute
)

var purgeIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func checkFleetFields(req PurgeRequest) error {
	if req.ID != "" && !purgeIDPattern.MatchString(req.ID) {
		return fmt.Errorf("id %q: want 1 to 64 of A-Z a-z 0-9 _ -", req.ID)
	}
	if req.WaitFor < 0 || req.WaitFor > maxWaitFor {
		return fmt.Errorf("wait_for %d: want 0 to %d", req.WaitFor, maxWaitFor)
	}
	if req.Timeout < 0 || time.Duration(req.Timeout) > maxWaitTimeout {
		return fmt.Errorf("timeout %s: want up to %s", time.Duration(req.Timeout), maxWaitTimeout)
	}
	return nil
}

// ApplyPurge applies a purge from the fleet's log to this node's store
// named req.Cache (default "default"); it returns how many entries it
// purged.
func ApplyPurge(req PurgeRequest) (int, error) {
	if req.Cache == "" {
		req.Cache = "default"
	}
	store, ok := lookupStore(req.Cache)
	if !ok {
		return 0, fmt.Errorf("no cache named %q on this node", req.Cache)
	}
	return purge(store, req), nil
}

// SoftPurgeEverything marks every entry of every store stale: what a node
// does when it cannot know which purges it missed.
func SoftPurgeEverything() int {
	n := 0
	storesByName.Range(func(_, v any) bool {
		n += purge(v.(*namedStore), PurgeRequest{All: true, Soft: true})
		return true
	})
	return n
}
