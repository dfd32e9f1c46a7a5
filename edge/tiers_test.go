package main

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// fetchAll requests every path through each node, workers at a time per
// node, all nodes at once, and fails on any answer but 200 with the
// object's body. It returns the responses by node and path.
func fetchAll(t *testing.T, nodes []*tierNode, paths []string, workers int) map[string]map[string]tierResponse {
	t.Helper()
	out := make(map[string]map[string]tierResponse)
	var mu sync.Mutex
	var wg sync.WaitGroup
	var failures atomic.Int64
	var firstErr atomic.Value
	for _, n := range nodes {
		out[n.name] = make(map[string]tierResponse, len(paths))
		next := atomic.Int64{}
		for range workers {
			wg.Go(func() {
				for i := int(next.Add(1)) - 1; i < len(paths); i = int(next.Add(1)) - 1 {
					r, err := tierFetch(n, paths[i])
					if err == nil && (r.code != 200 || r.body != "object "+paths[i]) {
						err = fmt.Errorf("%s via %s: %d %q (Cache-Status %q)", paths[i], n.name, r.code, r.body, r.cacheStatus)
					}
					if err != nil {
						failures.Add(1)
						firstErr.CompareAndSwap(nil, err)
						continue
					}
					mu.Lock()
					out[n.name][paths[i]] = r
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if n := failures.Load(); n > 0 {
		t.Fatalf("%d requests failed; first: %v", n, firstErr.Load())
	}
	return out
}

func objectPaths(prefix string, n int) []string {
	paths := make([]string, n)
	for i := range paths {
		paths[i] = fmt.Sprintf("/%s/%d", prefix, i)
	}
	return paths
}

// outcomes counts, over responses, what one cache's Cache-Status member
// says: hit, or fwd=miss (collapsed or not).
func outcomes(rs map[string]tierResponse, cache string) (hits, misses int) {
	for _, r := range rs {
		switch m := r.member(cache); {
		case strings.Contains(m, "; hit"):
			hits++
		case strings.Contains(m, "fwd=miss"):
			misses++
		}
	}
	return hits, misses
}

// Two edges behind one shield, every object requested through both at
// once: the origin sees each object once, not once per edge; the same
// objects through two edges straight to the origin, in the same run, cost
// it two fetches each.
func TestTierOriginFetchesOncePerObject(t *testing.T) {
	const objects = 1000
	origin := startTierOrigin(t, nil)
	shield := newTierNode(t, "shield-1", true)
	edgeA := newTierNode(t, "edge-a", false, shield.addr())
	edgeB := newTierNode(t, "edge-b", false, shield.addr())
	directA := newTierNode(t, "direct-a", false)
	directB := newTierNode(t, "direct-b", false)
	runFleet(t, origin.addr, shield, edgeA, edgeB, directA, directB)

	tiered := fetchAll(t, []*tierNode{edgeA, edgeB}, objectPaths("tiered", objects), 8)
	tieredFetches := origin.fetches.Load()
	fetchAll(t, []*tierNode{directA, directB}, objectPaths("direct", objects), 8)
	directFetches := origin.fetches.Load() - tieredFetches
	if tieredFetches != objects {
		t.Errorf("tiered: the origin served %d requests for %d objects, want %d", tieredFetches, objects, objects)
	}
	if directFetches != 2*objects {
		t.Errorf("no shield: the origin served %d requests, want %d (one per edge and object)", directFetches, 2*objects)
	}
	var shieldHits, shieldMisses int
	for _, edge := range []string{"edge-a", "edge-b"} {
		h, m := outcomes(tiered[edge], "shield-1")
		shieldHits += h
		shieldMisses += m
		if h+m != objects {
			t.Errorf("%s: %d of %d responses carry shield-1's Cache-Status member", edge, h+m, objects)
		}
	}
	t.Logf("origin fetches for %d objects through 2 edges: %d with a shield, %d without (%.2fx)",
		objects, tieredFetches, directFetches, float64(directFetches)/float64(tieredFetches))
	t.Logf("shield-1: %d hits, %d misses (%d collapsed onto another edge's fetch): tier hit ratio %.3f",
		shieldHits, shieldMisses, shieldMisses-objects, float64(shieldHits)/float64(2*objects))

	// A second pass is all edge hits: nothing reaches the shield or origin.
	again := fetchAll(t, []*tierNode{edgeA, edgeB}, objectPaths("tiered", objects), 8)
	for _, edge := range []string{"edge-a", "edge-b"} {
		if h, _ := outcomes(again[edge], edge); h != objects {
			t.Errorf("second pass via %s: %d of %d edge hits", edge, h, objects)
		}
	}
	if n := origin.fetches.Load(); n != tieredFetches+directFetches {
		t.Errorf("second pass reached the origin %d times", n-tieredFetches-directFetches)
	}
}

// Cache-Status lists every tier's outcome, the cache nearest the origin
// first (RFC 9211 section 2); a hit at the edge keeps the member of the
// shield that filled it.
func TestTierCacheStatusList(t *testing.T) {
	origin := startTierOrigin(t, nil)
	shield := newTierNode(t, "shield-1", true)
	edgeA := newTierNode(t, "edge-a", false, shield.addr())
	edgeB := newTierNode(t, "edge-b", false, shield.addr())
	runFleet(t, origin.addr, shield, edgeA, edgeB)

	for _, step := range []struct {
		node *tierNode
		want []string
	}{
		{edgeA, []string{"shield-1; fwd=miss; stored", "edge-a; fwd=miss; stored"}},
		{edgeA, []string{"shield-1; fwd=miss; stored", "edge-a; hit; ttl="}},
		{edgeB, []string{"shield-1; hit; ttl=", "edge-b; fwd=miss; stored"}},
	} {
		r := tierGet(t, step.node, "/status")
		if len(r.cacheStatus) != len(step.want) {
			t.Fatalf("via %s: Cache-Status %q, want %q", step.node.name, r.cacheStatus, step.want)
		}
		for i, w := range step.want {
			if !strings.HasPrefix(r.cacheStatus[i], w) {
				t.Fatalf("via %s: Cache-Status %q, want %q", step.node.name, r.cacheStatus, step.want)
			}
		}
	}
	if n := origin.fetches.Load(); n != 1 {
		t.Fatalf("origin fetched %d times", n)
	}
}

// Two shields split the objects between them by rendezvous hashing of the
// URI: each object lives on one shield, the same one whichever edge asks.
func TestTierTwoShieldsSplitObjects(t *testing.T) {
	const objects = 400
	origin := startTierOrigin(t, nil)
	s1 := newTierNode(t, "shield-1", true)
	s2 := newTierNode(t, "shield-2", true)
	edgeA := newTierNode(t, "edge-a", false, s1.addr(), s2.addr())
	edgeB := newTierNode(t, "edge-b", false, s1.addr(), s2.addr())
	runFleet(t, origin.addr, s1, s2, edgeA, edgeB)

	paths := objectPaths("split", objects)
	got := fetchAll(t, []*tierNode{edgeA, edgeB}, paths, 8)
	perShield := map[string]int{}
	for _, p := range paths {
		a, b := got["edge-a"][p], got["edge-b"][p]
		var sa, sb string
		for _, s := range []string{"shield-1", "shield-2"} {
			if a.member(s) != "" {
				sa = s
			}
			if b.member(s) != "" {
				sb = s
			}
		}
		if sa == "" || sa != sb {
			t.Fatalf("%s: edge-a went to %q (%q), edge-b to %q (%q)", p, sa, a.cacheStatus, sb, b.cacheStatus)
		}
		perShield[sa]++
	}
	if n := origin.fetches.Load(); n != objects {
		t.Errorf("origin fetches %d, want %d", n, objects)
	}
	// Rendezvous hashing splits evenly in expectation; 400 objects land
	// within 35-65 % with overwhelming probability.
	if perShield["shield-1"] < objects*35/100 || perShield["shield-2"] < objects*35/100 {
		t.Errorf("split %v", perShield)
	}
	t.Logf("objects per shield: %v", perShield)
}

// A shield that dies costs users nothing: its objects move to the other
// shield (the next by rendezvous hashing), and with both gone the edges
// fetch from the origin themselves, still caching and coalescing.
func TestTierShieldDownFailsOver(t *testing.T) {
	const objects = 200
	origin := startTierOrigin(t, nil)
	s1 := newTierNode(t, "shield-1", true)
	s2 := newTierNode(t, "shield-2", true)
	door1 := openTierDoor(t, s1.addr())
	door2 := openTierDoor(t, s2.addr())
	edgeA := newTierNode(t, "edge-a", false, door1.addr(), door2.addr())
	edgeB := newTierNode(t, "edge-b", false, door1.addr(), door2.addr())
	runFleet(t, origin.addr, s1, s2, edgeA, edgeB)
	edges := []*tierNode{edgeA, edgeB}

	before := fetchAll(t, edges, objectPaths("warm", objects), 4)
	onS1 := 0
	for _, r := range before["edge-a"] {
		if r.member("shield-1") != "" {
			onS1++
		}
	}
	if onS1 == 0 || onS1 == objects {
		t.Fatalf("shield-1 holds %d of %d objects: no split to fail over", onS1, objects)
	}

	door1.shut()
	// New objects, requested while the edges find out: every one answered.
	after := fetchAll(t, edges, objectPaths("s1-down", objects), 4)
	for _, r := range after["edge-a"] {
		if r.member("shield-1") != "" || r.member("shield-2") == "" {
			t.Fatalf("shield-1 down: Cache-Status %q, want shield-2's member", r.cacheStatus)
		}
	}

	door2.shut()
	fetched := origin.fetches.Load()
	last := fetchAll(t, edges, objectPaths("all-down", objects), 4)
	for _, r := range last["edge-b"] {
		if len(r.cacheStatus) != 1 || r.member("edge-b") == "" {
			t.Fatalf("both shields down: Cache-Status %q, want edge-b's member alone", r.cacheStatus)
		}
	}
	// The edges still cache and coalesce on the origin path: once per
	// object per edge, at most.
	if n := origin.fetches.Load() - fetched; n > 2*objects {
		t.Errorf("both shields down: %d origin fetches for %d objects on 2 edges", n, objects)
	}
	if h, _ := outcomes(fetchAll(t, edges, objectPaths("all-down", objects), 4)["edge-a"], "edge-a"); h != objects {
		t.Errorf("both shields down: %d of %d repeat requests were edge hits", h, objects)
	}
	t.Logf("shield-1 held %d of %d objects; all answered after it went down, and after both did", onS1, objects)
}

// Tiers that point at each other cannot loop: the node a request meets a
// second time refuses it (508), the origin is never asked, and nothing
// hangs on a fetch waiting for itself.
func TestTierLoopRefused(t *testing.T) {
	origin := startTierOrigin(t, nil)
	edge := newTierNode(t, "edge-a", false)
	shield := newTierNode(t, "shield-1", true, edge.addr()) // misconfigured: its parent is its child
	edge.parents = []string{shield.addr()}
	runFleet(t, origin.addr, edge, shield)

	r := tierGet(t, edge, "/loop")
	if r.code != http.StatusLoopDetected {
		t.Fatalf("looped request: %d %q (Cache-Status %q)", r.code, r.body, r.cacheStatus)
	}
	if n := origin.fetches.Load(); n != 0 {
		t.Fatalf("origin fetched %d times", n)
	}
	// A client forging this node's marker is refused the same way, at no
	// cost beyond its own request.
	r = tierGet(t, shield, "/forged", "CDN-Loop", "lastmile; node=shield-1")
	if r.code != http.StatusLoopDetected || origin.fetches.Load() != 0 {
		t.Fatalf("forged marker: %d, origin fetches %d", r.code, origin.fetches.Load())
	}
}
