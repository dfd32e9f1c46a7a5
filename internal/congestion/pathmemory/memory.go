// Package pathmemory is the edge's memory of the paths to its clients:
// what a QUIC connection's congestion controller learned of the path (its
// window, minimum RTT and loss rate), kept per client address so that the
// next connection from there can start from it (Careful Resume, RFC 9959;
// the controller's side is internal/congestion/bbr/resume.go).
//
// The table is bounded in entries (least recently used first out) and in
// age. A client owns its entry only as far as its address does: an IPv4
// address, or an IPv6 /64 (one subscriber's prefix). Clients behind one
// carrier NAT share an entry; the controller checks the saved RTT against
// the new connection's first RTT sample, jumps to half the saved window
// at most (and never more than a fixed cap), and retreats on loss, so a
// client that inflates its entry (by acknowledging fast) mostly hurts its
// own next connection.
package pathmemory

import (
	"container/list"
	"net"
	"net/netip"
	"sync"
	"time"
)

// Record is what the edge remembers of a path.
type Record struct {
	Cwnd   int64         // bytes: the window the connection had validated
	MinRTT time.Duration // its minimum RTT
	// LossRate is the share of its bytes the connection lost (0: none, or
	// too few sent to tell).
	LossRate float64
}

// Memory is a bounded table of Records by client prefix. It is safe for
// concurrent use.
type Memory struct {
	max    int
	maxAge time.Duration
	now    func() time.Time

	mu      sync.Mutex
	entries map[netip.Prefix]*list.Element
	lru     list.List // of *entry, most recently used first
}

type entry struct {
	key   netip.Prefix
	rec   Record
	saved time.Time
}

// New returns a Memory of at most max entries, each forgotten maxAge after
// it was saved. now is the clock (time.Now unless a test injects one).
func New(max int, maxAge time.Duration, now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{max: max, maxAge: maxAge, now: now, entries: make(map[netip.Prefix]*list.Element)}
}

// Key is the prefix a client's entry is kept under: its IPv4 address, or
// the /64 of its IPv6 address. ok is false for addresses that are not IP.
func Key(addr net.Addr) (key netip.Prefix, ok bool) {
	var ap netip.AddrPort
	switch a := addr.(type) {
	case *net.UDPAddr:
		ap = a.AddrPort()
	case *net.TCPAddr:
		ap = a.AddrPort()
	default:
		return netip.Prefix{}, false
	}
	ip := ap.Addr().Unmap()
	if !ip.IsValid() {
		return netip.Prefix{}, false
	}
	bits := 32
	if ip.Is6() {
		bits = 64
	}
	key, err := ip.Prefix(bits)
	return key, err == nil
}

// Get returns the record saved under key, if one is there and not too old.
func (m *Memory) Get(key netip.Prefix) (Record, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.entries[key]
	if !ok {
		return Record{}, false
	}
	e := el.Value.(*entry)
	if m.now().Sub(e.saved) > m.maxAge {
		m.remove(el)
		return Record{}, false
	}
	m.lru.MoveToFront(el)
	return e.rec, true
}

// Put saves rec under key, replacing what was there, and forgets the least
// recently used entries beyond the bound.
func (m *Memory) Put(key netip.Prefix, rec Record) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if el, ok := m.entries[key]; ok {
		e := el.Value.(*entry)
		e.rec, e.saved = rec, now
		m.lru.MoveToFront(el)
		return
	}
	m.entries[key] = m.lru.PushFront(&entry{key: key, rec: rec, saved: now})
	for m.lru.Len() > m.max {
		m.remove(m.lru.Back())
	}
}

// Len is the number of entries, expired ones included until looked up or
// pushed out.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lru.Len()
}

func (m *Memory) remove(el *list.Element) {
	delete(m.entries, el.Value.(*entry).key)
	m.lru.Remove(el)
}
