package originlink

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	"github.com/lastmile-edge/lastmile/internal/tcptune"
	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// h2cOrigin is a real HTTP/2 (cleartext) origin that counts and keeps its
// connections.
type h2cOrigin struct {
	addr    string
	srv     *http.Server
	newConn atomic.Int64
	mu      sync.Mutex
	conns   []net.Conn
}

func startOrigin(t *testing.T, handler http.HandlerFunc) *h2cOrigin {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o := &h2cOrigin{addr: ln.Addr().String()}
	o.srv = &http.Server{Handler: handler, Protocols: new(http.Protocols), ConnState: func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			o.newConn.Add(1)
			o.mu.Lock()
			o.conns = append(o.conns, c)
			o.mu.Unlock()
		}
	}}
	o.srv.Protocols.SetHTTP1(true)
	o.srv.Protocols.SetUnencryptedHTTP2(true)
	go o.srv.Serve(ln)
	t.Cleanup(func() { o.srv.Close() })
	return o
}

type edge struct{ base, admin string }

func startEdge(t *testing.T, origin string, options string) *edge {
	t.Helper()
	return startSite(t, fmt.Sprintf("reverse_proxy %s {\n\t\ttransport origin_link {\n\t\t\twarm %s\n\t\t\t%s\n\t\t}\n\t}", origin, origin, options))
}

// startSite runs Caddy with one site whose body is site.
func startSite(t *testing.T, site string) *edge {
	t.Helper()
	port, admin := testcaddy.FreePort(t), testcaddy.FreePort(t)
	testcaddy.Run(t, fmt.Sprintf("{\n\tadmin 127.0.0.1:%s\n\tauto_https off\n\tpersist_config off\n}\nhttp://127.0.0.1:%s {\n\t%s\n}\n", admin, port, site))
	return &edge{base: "http://127.0.0.1:" + port, admin: "http://127.0.0.1:" + admin}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (e *edge) origins(t *testing.T) []OriginView {
	t.Helper()
	resp, err := http.Get(e.admin + "/lastmile/origins")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v []OriginView
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// linksUp waits until the admin view shows n live links to the one origin
// (the pool dials after Caddy has started, so not before the first look).
func (e *edge) linksUp(t *testing.T, n int) []OriginView {
	t.Helper()
	var v []OriginView
	waitFor(t, fmt.Sprintf("%d live links", n), func() bool {
		v = e.origins(t)
		return len(v) == 1 && len(v[0].Links) == n
	})
	return v
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func protoHandler(w http.ResponseWriter, r *http.Request) {
	if d, _ := time.ParseDuration(r.URL.Query().Get("sleep")); d > 0 {
		time.Sleep(d)
	}
	fmt.Fprint(w, r.Proto)
}

// The pool is open before the first user request, which then pays no
// handshake; N concurrent requests share the M pooled connections.
func TestWarmPoolServesFirstRequestAndSharesConnections(t *testing.T) {
	o := startOrigin(t, protoHandler)
	e := startEdge(t, o.addr, "pool_size 3")
	// The links are open when the config has loaded; the origin's accept
	// loop may count them a moment later.
	waitFor(t, "3 connections before any request", func() bool { return o.newConn.Load() == 3 })
	if code, body := get(t, e.base+"/"); code != 200 || body != "HTTP/2.0" {
		t.Fatalf("first request: %d %q", code, body)
	}
	var wg sync.WaitGroup
	for range 60 {
		wg.Go(func() {
			if code, body := get(t, e.base+"/?sleep=100ms"); code != 200 || body != "HTTP/2.0" {
				t.Errorf("%d %q", code, body)
			}
		})
	}
	wg.Wait()
	if got := o.newConn.Load(); got != 3 {
		t.Fatalf("60 concurrent requests opened %d connections in all, want the 3 pooled", got)
	}
}

// A connection the origin kills is replaced.
func TestKilledConnectionIsReplaced(t *testing.T) {
	o := startOrigin(t, protoHandler)
	e := startEdge(t, o.addr, "pool_size 2\n\t\t\tping_interval 200ms")
	waitFor(t, "the pool's 2 connections at the origin", func() bool { return o.newConn.Load() == 2 })
	o.mu.Lock()
	first := o.conns[0]
	o.mu.Unlock()
	first.Close()
	waitFor(t, "a redial", func() bool { return o.newConn.Load() == 3 })
	e.linksUp(t, 2)
	if code, _ := get(t, e.base+"/"); code != 200 {
		t.Fatalf("after the replacement: %d", code)
	}
}

// The socket has the congestion control asked for (read back with
// getsockopt), buffers sized to the path, and real TCP_INFO, in the JSON
// view and the metrics alike.
func TestTCPInfoAndCongestionControl(t *testing.T) {
	o := startOrigin(t, protoHandler)
	e := startEdge(t, o.addr, "pool_size 2\n\t\t\tcongestion_control cubic\n\t\t\tpath_bandwidth 200Mbit\n\t\t\tpath_rtt 20ms")
	for range 5 {
		get(t, e.base+"/")
	}
	v := e.linksUp(t, 2)
	if len(v) != 1 || v[0].Origin != o.addr || v[0].Protocol != "h2c" || len(v[0].Links) != 2 {
		t.Fatalf("origins view: %+v", v)
	}
	for _, l := range v[0].Links {
		if !l.HasTCPInfo || l.TCP.Congestion != "cubic" || l.TCP.RTT <= 0 || l.TCP.CwndPackets == 0 || l.TCP.MSS == 0 {
			t.Fatalf("link %d: %+v", l.Slot, l.TCP)
		}
		// 200 Mbit/s x 20 ms = 500 kB; the kernel reports double.
		if l.TCP.SendBuffer < 500_000 {
			t.Fatalf("send buffer %d, want the path's BDP", l.TCP.SendBuffer)
		}
	}
	resp, err := http.Get(e.admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, series := range []string{"lastmile_origin_link_rtt_seconds", "lastmile_origin_link_cwnd_packets", "lastmile_origin_pool_connections"} {
		re := regexp.MustCompile(`(?m)^` + series + `\{origin="` + regexp.QuoteMeta(o.addr) + `"[^}]*\} ([0-9.e+-]+)$`)
		m := re.FindSubmatch(body)
		if m == nil {
			t.Fatalf("no %s for %s", series, o.addr)
		}
		if v, _ := strconv.ParseFloat(string(m[1]), 64); v <= 0 {
			t.Fatalf("%s = %v", series, v)
		}
	}
}

// BBR by default where the kernel has it.
func TestBBRByDefault(t *testing.T) {
	have, _ := tcptune.Available()
	if !strings.Contains(strings.Join(have, " "), "bbr") {
		t.Skip("this kernel has no bbr")
	}
	o := startOrigin(t, protoHandler)
	e := startEdge(t, o.addr, "pool_size 1")
	v := e.linksUp(t, 1)
	if v[0].Links[0].TCP.Congestion != "bbr" {
		t.Fatalf("%+v", v)
	}
}

// A dead origin fails requests fast with 502.
func TestDeadOriginFailsFast(t *testing.T) {
	o := startOrigin(t, protoHandler)
	e := startEdge(t, o.addr, "pool_size 2")
	o.srv.Close()
	start := time.Now()
	code, _ := get(t, e.base+"/")
	if code != http.StatusBadGateway || time.Since(start) > 2*time.Second {
		t.Fatalf("dead origin: %d after %v", code, time.Since(start))
	}
}

// An origin that speaks only HTTP/1.1 still works.
func TestHTTP1Origin(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(protoHandler)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	e := startEdge(t, ln.Addr().String(), "protocol h1")
	if code, body := get(t, e.base+"/"); code != 200 || body != "HTTP/1.1" {
		t.Fatalf("%d %q", code, body)
	}
}
