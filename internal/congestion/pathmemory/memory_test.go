package pathmemory

import (
	"net"
	"net/netip"
	"testing"
	"time"
)

// testClock is a clock that moves only when told.
type testClock struct{ t time.Time }

func (c *testClock) now() time.Time { return c.t }

func key(t *testing.T, addr string) netip.Prefix {
	t.Helper()
	k, ok := Key(net.UDPAddrFromAddrPort(netip.MustParseAddrPort(addr)))
	if !ok {
		t.Fatalf("no key for %s", addr)
	}
	return k
}

// A client's entry is its IPv4 address or its IPv6 /64, whatever its port;
// an IPv4-mapped IPv6 address is its IPv4 address.
func TestKey(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"198.18.0.1:443", "198.18.0.1:5555"},
		{"198.18.0.1:443", "[::ffff:198.18.0.1]:443"},
		{"[2001:db8:1:2::1]:443", "[2001:db8:1:2:ffff::9]:1234"},
	} {
		if ka, kb := key(t, tc.a), key(t, tc.b); ka != kb {
			t.Errorf("%s -> %s, %s -> %s: want the same key", tc.a, ka, tc.b, kb)
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"198.18.0.1:443", "198.18.0.2:443"},
		{"[2001:db8:1:2::1]:443", "[2001:db8:1:3::1]:443"},
	} {
		if ka, kb := key(t, tc.a), key(t, tc.b); ka == kb {
			t.Errorf("%s and %s share key %s, want their own", tc.a, tc.b, ka)
		}
	}
	if _, ok := Key(&net.UnixAddr{Name: "/tmp/x", Net: "unixgram"}); ok {
		t.Error("a Unix address has a key")
	}
}

// An entry is forgotten maxAge after it was saved; saving it again
// restarts its age.
func TestEntriesExpire(t *testing.T) {
	clock := &testClock{t: time.Unix(1_000_000, 0)}
	m := New(10, time.Minute, clock.now)
	k := key(t, "198.18.0.1:443")
	m.Put(k, Record{Cwnd: 100_000, MinRTT: 350 * time.Millisecond})
	clock.t = clock.t.Add(time.Minute)
	if rec, ok := m.Get(k); !ok || rec.Cwnd != 100_000 {
		t.Fatalf("at maxAge: %v %v, want the record", rec, ok)
	}
	m.Put(k, Record{Cwnd: 200_000, MinRTT: 350 * time.Millisecond})
	clock.t = clock.t.Add(time.Minute)
	if rec, ok := m.Get(k); !ok || rec.Cwnd != 200_000 {
		t.Fatalf("maxAge after the second save: %v %v, want the new record", rec, ok)
	}
	clock.t = clock.t.Add(time.Nanosecond)
	if rec, ok := m.Get(k); ok {
		t.Fatalf("after maxAge: %v, want nothing", rec)
	}
	if m.Len() != 0 {
		t.Errorf("%d entries after the only one expired, want 0", m.Len())
	}
}

// The table keeps at most max entries, forgetting the least recently used.
func TestBoundedLeastRecentlyUsed(t *testing.T) {
	clock := &testClock{t: time.Unix(1_000_000, 0)}
	m := New(2, time.Hour, clock.now)
	a, b, c := key(t, "198.18.0.1:1"), key(t, "198.18.0.2:1"), key(t, "198.18.0.3:1")
	m.Put(a, Record{Cwnd: 1})
	m.Put(b, Record{Cwnd: 2})
	m.Get(a) // a is now the most recently used
	m.Put(c, Record{Cwnd: 3})
	if m.Len() != 2 {
		t.Fatalf("%d entries, want 2", m.Len())
	}
	if _, ok := m.Get(b); ok {
		t.Error("b, the least recently used, was kept")
	}
	for _, k := range []netip.Prefix{a, c} {
		if _, ok := m.Get(k); !ok {
			t.Errorf("%s was forgotten", k)
		}
	}
}
