package httpcache

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// A fresh hit carries Age, this cache's Cache-Status member with its ttl
// after the members the stored response brought, and Server-Timing; the
// values a hit reuses from the last hit of the same second are the same
// a fresh one would make.
func TestFreshHitFieldsFull(t *testing.T) {
	o := newOrigin(t)
	o.respond("/full", http.StatusOK, "Cache-Control", "max-age=600", "Cache-Status", "shield; fwd=miss; stored")
	e := startCache(t, o, "status_name edge-1")
	e.get(t, "/full")
	member := regexp.MustCompile(`^edge-1; hit; ttl=(600|599)$`)
	timing := regexp.MustCompile(`^cache;desc=hit, edge;dur=\d+\.\d$`)
	for range 3 {
		r := e.get(t, "/full")
		cs := r.header.Values("Cache-Status")
		if len(cs) != 2 || cs[0] != "shield; fwd=miss; stored" || !member.MatchString(cs[1]) {
			t.Fatalf("Cache-Status %q: want the shield's member, then edge-1's hit with its ttl", cs)
		}
		if age := r.header.Get("Age"); age != "0" && age != "1" {
			t.Fatalf("Age %q, want 0 or 1", age)
		}
		if st := r.header.Values("Server-Timing"); len(st) != 1 || !timing.MatchString(st[0]) {
			t.Fatalf("Server-Timing %q", st)
		}
	}
}

// Fields the origin named in no-cache="..." leave the stored response on
// every hit; a fresh hit's own Cache-Status and Server-Timing then stand
// alone instead of bringing the stripped members back.
func TestFreshHitFieldsAfterStrippedFields(t *testing.T) {
	o := newOrigin(t)
	o.respond("/strip", http.StatusOK, "Cache-Control", `max-age=600, no-cache="Cache-Status, Server-Timing"`,
		"Cache-Status", "shield; fwd=miss; stored", "Server-Timing", "origin;dur=3")
	e := startCache(t, o, "status_name edge-1")
	e.get(t, "/strip")
	r := e.get(t, "/strip")
	if cs := r.header.Values("Cache-Status"); len(cs) != 1 || !strings.HasPrefix(cs[0], "edge-1; hit; ttl=") {
		t.Fatalf("Cache-Status %q: want edge-1's hit alone", cs)
	}
	if st := r.header.Values("Server-Timing"); len(st) != 1 || !strings.HasPrefix(st[0], "cache;desc=hit") {
		t.Fatalf("Server-Timing %q: want the hit's alone", st)
	}
}

// hit_fields compact answers every hit with the same Cache-Status and no
// Server-Timing; stale responses keep their detail.
func TestFreshHitFieldsCompact(t *testing.T) {
	o := newOrigin(t)
	o.respond("/compact", http.StatusOK, "Cache-Control", "max-age=600")
	o.respond("/stale", http.StatusOK, "Cache-Control", "max-age=1")
	e := startCache(t, o, "hit_fields compact")
	e.get(t, "/compact")
	for range 3 {
		r := e.get(t, "/compact")
		if cs := r.header.Values("Cache-Status"); !slices.Equal(cs, []string{"lastmile; hit"}) {
			t.Fatalf("Cache-Status %q, want lastmile; hit", cs)
		}
		if st := r.header.Values("Server-Timing"); len(st) != 0 {
			t.Fatalf("Server-Timing %q on a compact hit", st)
		}
	}
	e.get(t, "/stale")
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := e.get(t, "/stale", "Cache-Control", "max-stale=60")
		if cs := r.cacheStatus(); strings.HasPrefix(cs, "lastmile; hit; ttl=") && strings.HasSuffix(cs, "; detail=max-stale") {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("no max-stale hit with its detail: last Cache-Status %q", cs)
		}
		time.Sleep(50 * time.Millisecond) // polling the entry's one-second lifetime running out
	}
}
