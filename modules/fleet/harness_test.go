package fleet

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	_ "github.com/caddyserver/caddy/v2/modules/standard"
	"github.com/nats-io/nats-server/v2/server"

	"github.com/lastmile-edge/lastmile/internal/natsembed"
	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	_ "github.com/lastmile-edge/lastmile/modules/httpcache"
)

// nodeConfigEnv makes the test binary run as one edge: Caddy is one per
// process, so each node of a test fleet is this binary started again.
const nodeConfigEnv = "LASTMILE_FLEET_TEST_NODE_CONFIG"

func TestMain(m *testing.M) {
	if cfg := os.Getenv(nodeConfigEnv); cfg != "" {
		os.Exit(runNode(cfg))
	}
	os.Exit(m.Run())
}

func runNode(path string) int {
	body, err := os.ReadFile(path)
	if err == nil {
		var js []byte
		js, _, err = caddyconfig.GetAdapter("caddyfile").Adapt(body, nil)
		if err == nil {
			err = caddy.Load(js, true)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "node:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	<-ctx.Done()
	_ = caddy.Stop()
	return 0
}

// host is the site name every node serves, as anycast nodes share one:
// stored URLs, and so URL purges, are the same on all of them.
const host = "cdn.test"

// natsServer is an embedded NATS server that a test can stop and restart
// on the same port and store.
type natsServer struct {
	t    testing.TB
	dir  string
	port int
	srv  *server.Server
}

func startNATS(t testing.TB) *natsServer {
	port, _ := strconv.Atoi(testcaddy.FreePort(t))
	n := &natsServer{t: t, dir: t.TempDir(), port: port}
	n.start()
	t.Cleanup(n.stop)
	return n
}

func (n *natsServer) start() {
	s, err := natsembed.Start(n.dir, n.port)
	if err != nil {
		n.t.Fatal(err)
	}
	n.srv = s
}

func (n *natsServer) stop() {
	if n.srv != nil {
		n.srv.Shutdown()
		n.srv.WaitForShutdown()
		n.srv = nil
	}
}

func (n *natsServer) url() string { return "nats://127.0.0.1:" + strconv.Itoa(n.port) }

// origin serves /obj as "v<version>", cacheable for an hour.
type origin struct {
	*httptest.Server
	version atomic.Int64
}

func startOrigin(t testing.TB) *origin {
	o := &origin{}
	o.version.Store(1)
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := strconv.FormatInt(o.version.Load(), 10)
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Header().Set("ETag", `"`+v+`"`)
		io.WriteString(w, "v"+v)
	}))
	t.Cleanup(o.Close)
	return o
}

// node is one edge process of the fleet.
type node struct {
	t         testing.TB
	name      string
	dir       string
	admin     string
	port      string
	caddyfile string
	cmd       *exec.Cmd
}

// startNode runs an edge named name that reaches NATS at natsURL.
// extra goes into its fleet block.
func startNode(t testing.TB, name, natsURL string, o *origin, extra string) *node {
	n := &node{t: t, name: name, dir: t.TempDir(),
		admin: "127.0.0.1:" + testcaddy.FreePort(t), port: testcaddy.FreePort(t)}
	n.caddyfile = fmt.Sprintf(`{
	admin %s
	persist_config off
	auto_https off
	storage file_system %s
	fleet {
		nats %s
		node %s
		%s
	}
}
http://:%s {
	edge_cache {
		purge_token s3cret
	}
	reverse_proxy %s
}
`, n.admin, filepath.Join(n.dir, "storage"), natsURL, name, extra, n.port, strings.TrimPrefix(o.URL, "http://"))
	n.start()
	t.Cleanup(n.stop)
	return n
}

func (n *node) start() {
	t := n.t
	cfg := filepath.Join(n.dir, "Caddyfile")
	if err := os.WriteFile(cfg, []byte(n.caddyfile), 0o600); err != nil {
		t.Fatal(err)
	}
	logf, err := os.OpenFile(filepath.Join(n.dir, "log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	n.cmd = exec.Command(os.Args[0])
	n.cmd.Env = append(os.Environ(), nodeConfigEnv+"="+cfg, "HOME="+n.dir, "XDG_DATA_HOME="+n.dir, "XDG_CONFIG_HOME="+n.dir)
	n.cmd.Stdout, n.cmd.Stderr = logf, logf
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, n.name+" serving", func() bool {
		resp, err := http.Get("http://" + n.admin + "/config/")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

func (n *node) stop() {
	if n.cmd == nil {
		return
	}
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = n.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = n.cmd.Process.Kill()
		<-done
	}
	n.cmd = nil
	if n.t.Failed() {
		log, _ := os.ReadFile(filepath.Join(n.dir, "log"))
		n.t.Logf("%s log:\n%s", n.name, log)
	}
}

// get fetches /obj through the node.
func (n *node) get() string {
	n.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+n.port+"/obj", nil)
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		n.t.Fatalf("%s: GET: %v", n.name, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// purge posts body to the node's purge API.
func (n *node) purge(body string) (int, string) {
	n.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+n.admin+"/lastmile/cache/purge", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer s3cret")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		n.t.Fatalf("%s: purge: %v", n.name, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// metric reads one series from the node's /metrics, 0 if absent.
func (n *node) metric(series string) float64 {
	n.t.Helper()
	resp, err := http.Get("http://" + n.admin + "/metrics")
	if err != nil {
		n.t.Fatalf("%s: metrics: %v", n.name, err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return 0
}

// connected waits until the node is connected to NATS and consuming.
func (n *node) waitConnected() {
	waitFor(n.t, 20*time.Second, n.name+" connected", func() bool { return n.metric("lastmile_fleet_connected") == 1 })
}

const objURL = "http://" + host + "/obj"

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// proxy stands between a node and NATS; cut partitions the node.
type proxy struct {
	ln    net.Listener
	to    string
	mu    sync.Mutex
	cut   bool
	conns []net.Conn
}

func startProxy(t testing.TB, to string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, to: strings.TrimPrefix(to, "nats://")}
	t.Cleanup(func() { ln.Close(); p.setCut(true) })
	go p.serve()
	return p
}

func (p *proxy) url() string { return "nats://" + p.ln.Addr().String() }

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.to)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go func() { io.Copy(up, c); up.Close() }()
		go func() { io.Copy(c, up); c.Close() }()
	}
}

// setCut drops every proxied connection and refuses new ones, or lets
// them through again.
func (p *proxy) setCut(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = cut
	if cut {
		for _, c := range p.conns {
			c.Close()
		}
		p.conns = nil
	}
}
