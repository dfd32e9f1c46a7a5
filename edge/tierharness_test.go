package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// tierHost is the site every tier serves: edges and shields key objects by
// it, whichever edge a client reached.
const tierHost = "cdn.test"

// tierOrigin counts the requests each path brought to the origin.
type tierOrigin struct {
	addr    string
	fetches atomic.Int64
	mu      sync.Mutex
	byPath  map[string]int
	handler http.HandlerFunc // what it answers; a body naming the path by default
}

func startTierOrigin(t *testing.T, handler http.HandlerFunc) *tierOrigin {
	t.Helper()
	o := &tierOrigin{byPath: map[string]int{}, handler: handler}
	if o.handler == nil {
		o.handler = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Cache-Control", "public, max-age=600")
			fmt.Fprint(w, "object "+r.URL.Path)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.fetches.Add(1)
		o.mu.Lock()
		o.byPath[r.URL.Path]++
		o.mu.Unlock()
		o.handler(w, r)
	})}
	srv.Protocols = new(http.Protocols)
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true) // origin_link's default without TLS
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	o.addr = ln.Addr().String()
	return o
}

func (o *tierOrigin) count(path string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.byPath[path]
}

// tierNode is one lastmile node of a test fleet: a site on its own port
// with its own store, named like the node.
type tierNode struct {
	name    string
	port    string
	parents []string // upper tier addresses; none: the origin is its parent
	shield  bool     // answers lower tiers (forward_edge_fields)
}

// addr is where other nodes reach this one.
func (n *tierNode) addr() string { return "127.0.0.1:" + n.port }

// site is the node's part of the config: the tier setup of
// deploy/fleet/tiers/, with test timings.
func (n *tierNode) site(origin string) string {
	cache := fmt.Sprintf("edge_cache {\n\t\tname %s\n\t\tstatus_name %s\n", n.name, n.name)
	if n.shield {
		cache += "\t\tforward_edge_fields\n"
	}
	cache += "\t}"
	link := "transport origin_link {\n\t\t\tpool_size 1\n\t\t\tdial_timeout 500ms\n\t\t}"
	if len(n.parents) == 0 {
		return fmt.Sprintf(`:%s {
	cdn_loop %s
	%s
	reverse_proxy %s {
		%s
	}
}
`, n.port, n.name, cache, origin, link)
	}
	return fmt.Sprintf(`:%s {
	cdn_loop %s
	%s
	reverse_proxy %s {
		lb_policy uri_hash
		lb_retries 1
		fail_duration 30s
		max_fails 1
		%s
	}
	handle_errors 502 503 504 {
		%s
		reverse_proxy %s {
			%s
		}
	}
}
`, n.port, n.name, cache, strings.Join(n.parents, " "), link, cache, origin, link)
}

// runFleet loads one config holding every node (Caddy is one per process;
// each node has its own port, store and name, and reaches the others over
// loopback as it would over the network).
func runFleet(t *testing.T, origin string, nodes ...*tierNode) {
	t.Helper()
	cfg := "{\n\tadmin off\n\tauto_https off\n\tservers {\n\t\tprotocols h1 h2c\n\t}\n}\n"
	for _, n := range nodes {
		cfg += n.site(origin)
	}
	testcaddy.Run(t, cfg)
}

func newTierNode(t *testing.T, name string, shield bool, parents ...string) *tierNode {
	return &tierNode{name: name, port: testcaddy.FreePort(t), shield: shield, parents: parents}
}

// tierClient is a browser-side client of the fleet.
var tierClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

type tierResponse struct {
	code        int
	body        string
	cacheStatus []string // the Cache-Status members, origin side first
	header      http.Header
}

func tierGet(t testing.TB, n *tierNode, path string, header ...string) tierResponse {
	t.Helper()
	r, err := tierFetch(n, path, header...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// tierFetch is tierGet for goroutines, which must not call t.Fatal.
func tierFetch(n *tierNode, path string, header ...string) (tierResponse, error) {
	req, err := http.NewRequest("GET", "http://"+n.addr()+path, nil)
	if err != nil {
		return tierResponse{}, err
	}
	req.Host = tierHost
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := tierClient.Do(req)
	if err != nil {
		return tierResponse{}, fmt.Errorf("GET %s via %s: %w", path, n.name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return tierResponse{}, fmt.Errorf("GET %s via %s: body: %w", path, n.name, err)
	}
	var members []string
	for _, line := range resp.Header.Values("Cache-Status") {
		for _, m := range strings.Split(line, ",") {
			members = append(members, strings.TrimSpace(m))
		}
	}
	return tierResponse{code: resp.StatusCode, body: string(body), cacheStatus: members, header: resp.Header}, nil
}

// member returns the Cache-Status member a cache wrote, or "".
func (r tierResponse) member(cache string) string {
	for _, m := range r.cacheStatus {
		if m == cache || strings.HasPrefix(m, cache+";") {
			return m
		}
	}
	return ""
}

// tierDoor stands between a node and the nodes that reach it, so a test
// can take it off the network: once shut, its port refuses connections
// and the connections it carried are reset, as when a node dies.
type tierDoor struct {
	ln     net.Listener
	mu     sync.Mutex
	conns  []net.Conn
	closed bool
}

func openTierDoor(t *testing.T, to string) *tierDoor {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &tierDoor{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", to)
			if err != nil {
				c.Close()
				continue
			}
			d.mu.Lock()
			if d.closed {
				c.Close()
				up.Close()
				d.mu.Unlock()
				return
			}
			d.conns = append(d.conns, c, up)
			d.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	t.Cleanup(d.shut)
	return d
}

func (d *tierDoor) addr() string { return d.ln.Addr().String() }

func (d *tierDoor) shut() {
	d.ln.Close()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	for _, c := range d.conns {
		c.Close()
	}
	d.conns = nil
}
