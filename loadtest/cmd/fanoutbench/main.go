// Command fanoutbench measures the edge's `session fanout`: it runs the
// edge (loadtest/live.Caddyfile, as its own process, so its CPU and memory
// are its own) in front of an SSE origin emitting one event a second on
// one channel, each carrying its emit time, and opens N WebTransport
// sessions subscribed to that channel, many per QUIC connection. For each
// N of -sessions it reports, as one JSON line: delivery delay from emit to
// receipt (p50, p99, max), events missed, the edge's CPU and RSS per 1,000
// sessions, and how many streams the origin served (the goal: 1).
//
//	fanoutbench -edge loadtest/bin/lastmile -sessions 1000,2500,5000,10000
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/sseorigin"
	"github.com/lastmile-edge/lastmile/internal/testcert"
	"github.com/lastmile-edge/lastmile/internal/wtclient"
	"github.com/lastmile-edge/lastmile/internal/wtorigin"
)

type result struct {
	Sessions        int     `json:"sessions"`
	Subscribed      int64   `json:"subscribed"`
	Connections     int     `json:"quic_connections"`
	Events          int     `json:"events_emitted"`
	Deliveries      int     `json:"deliveries"`
	Missing         int64   `json:"deliveries_missing"`
	P50Ms           float64 `json:"delay_p50_ms"`
	P99Ms           float64 `json:"delay_p99_ms"`
	MaxMs           float64 `json:"delay_max_ms"`
	EdgeCPUPct      float64 `json:"edge_cpu_pct"`   // of one core, over the window
	ClientCPUPct    float64 `json:"client_cpu_pct"` // this process (origin and sessions), same cores
	CPUPer1000      float64 `json:"edge_cpu_pct_per_1000"`
	RSSMiB          float64 `json:"edge_rss_mib"`
	RSSPer1000MiB   float64 `json:"edge_rss_mib_per_1000"`
	OriginStreams   int64   `json:"origin_streams"`
	SetupSeconds    float64 `json:"setup_s"`
	MeasuredSeconds float64 `json:"measured_s"`
}

// emitted counts the origin's events, for the deliveries a window expects.
var emitted atomic.Int64

func main() {
	edgeBin := flag.String("edge", "loadtest/bin/lastmile", "the lastmile binary")
	caddyfile := flag.String("config", "loadtest/live.Caddyfile", "the edge's Caddyfile")
	steps := flag.String("sessions", "1000,2500,5000,10000", "session counts, one run each")
	perConn := flag.Int("per-conn", 1, "sessions per QUIC connection (the edge takes up to its quic app's webtransport_max_sessions_per_connection, 16 by default)")
	window := flag.Duration("window", 20*time.Second, "measurement window per step")
	profile := flag.String("cpuprofile", "", "write the edge's CPU profile over each step's window to this file, suffixed with the step's session count")
	flag.Parse()

	dir, err := os.MkdirTemp("", "fanoutbench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	origin := sseorigin.New()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(ln, origin)
	go func() {
		for range time.Tick(time.Second) {
			origin.Publish("bench", "", strconv.FormatInt(time.Now().UnixNano(), 10))
			emitted.Add(1)
		}
	}()
	// The Caddyfile's relay route needs an origin to point at.
	cert, err := testcert.WriteDir(dir)
	if err != nil {
		log.Fatal(err)
	}
	wt, err := wtorigin.Listen("127.0.0.1:0", cert.KeyPair, nil)
	if err != nil {
		log.Fatal(err)
	}
	wt.Serve()

	for _, s := range strings.Split(*steps, ",") {
		n, err := strconv.Atoi(s)
		if err != nil {
			log.Fatalf("-sessions: %v", err)
		}
		port, admin := freePort(), freePort()
		edge := exec.Command(*edgeBin, "run", "--adapter", "caddyfile", "--config", *caddyfile)
		edge.Env = append(os.Environ(), "LASTMILE_HTTPS_PORT="+port, "LASTMILE_HTTP_PORT="+freePort(),
			"LASTMILE_ADMIN=127.0.0.1:"+admin, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir,
			"LIVE_WT_ORIGIN="+wt.Addr, "LIVE_SSE_ORIGIN="+ln.Addr().String(), "LIVE_ORIGIN_CA="+cert.CertFile)
		logf, _ := os.Create(filepath.Join(dir, "edge.log"))
		edge.Stdout, edge.Stderr = logf, logf
		if err := edge.Start(); err != nil {
			log.Fatal(err)
		}
		before := origin.Opened()
		prof := ""
		if *profile != "" {
			prof = *profile + "." + s
		}
		res, err := run(n, *perConn, *window, "127.0.0.1:"+port, "127.0.0.1:"+admin, prof, edge.Process.Pid, origin)
		edge.Process.Kill()
		edge.Wait()
		logf.Close()
		if err != nil {
			log.Fatalf("%d sessions: %v", n, err)
		}
		res.OriginStreams = origin.Opened() - before
		json.NewEncoder(os.Stdout).Encode(res)
	}
}

// run opens n subscribed sessions, measures for window (the edge's CPU
// profile over it into profile, if set) and closes them.
func run(n, perConn int, window time.Duration, addr, admin, profile string, edgePid int, origin *sseorigin.Origin) (*result, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := waitUp(ctx, addr); err != nil {
		return nil, err
	}
	res := &result{Sessions: n}
	var (
		mu        sync.Mutex
		delays    []time.Duration
		measuring atomic.Bool
		// Only events emitted inside the window count, their
		// deliveries until the tail after it ends.
		emitFrom, emitTo atomic.Int64
		subscribed       atomic.Int64
		deliveries       atomic.Int64
	)
	start := time.Now()
	var conns []*quic.Conn
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i += perConn {
		client, conn, err := dial(ctx, addr)
		if err != nil {
			return nil, fmt.Errorf("connection %d: %w", len(conns), err)
		}
		conns = append(conns, conn)
		for j := i; j < min(n, i+perConn); j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := subscribe(ctx, client, addr, func(emit int64) {
					if !measuring.Load() || emit < emitFrom.Load() || emit > emitTo.Load() {
						return
					}
					d := time.Since(time.Unix(0, emit))
					deliveries.Add(1)
					mu.Lock()
					delays = append(delays, d)
					mu.Unlock()
				}, &subscribed)
				if err != nil && ctx.Err() == nil {
					errs <- err
				}
			}()
		}
		// Pace the opening, at most 256 sessions under way: a burst of
		// 10,000 CONNECTs is a different benchmark (the handshake path).
		for int64(min(n, i+perConn))-subscribed.Load() > 256 {
			select {
			case err := <-errs:
				return nil, err
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	deadline := time.Now().Add(2 * time.Minute)
	for subscribed.Load() < int64(n) {
		select {
		case err := <-errs:
			return nil, err
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("only %d of %d sessions subscribed in 2 min", subscribed.Load(), n)
		}
	}
	res.SetupSeconds = time.Since(start).Seconds()
	res.Subscribed = subscribed.Load()
	res.Connections = len(conns)
	cpu0, self0, t0, e0 := cpuTicks(edgePid), cpuTicks(os.Getpid()), time.Now(), emitted.Load()
	emitFrom.Store(t0.UnixNano())
	emitTo.Store(math.MaxInt64)
	measuring.Store(true)
	if profile != "" {
		if err := cpuProfile(admin, window, profile); err != nil {
			return nil, err
		}
	} else {
		time.Sleep(window)
	}
	cpu1, self1, t1, e1 := cpuTicks(edgePid), cpuTicks(os.Getpid()), time.Now(), emitted.Load()
	emitTo.Store(t1.UnixNano())
	rss := rssKiB(edgePid)
	// Deliveries of the window's last events may still be under way: one
	// later than 2 s counts as missing.
	time.Sleep(2 * time.Second)
	measuring.Store(false)
	events := int(e1 - e0)
	res.Events = events
	res.Deliveries = int(deliveries.Load())
	res.Missing = int64(events*n) - deliveries.Load()
	res.MeasuredSeconds = t1.Sub(t0).Seconds()
	res.EdgeCPUPct = float64(cpu1-cpu0) / 100 / t1.Sub(t0).Seconds() * 100 // USER_HZ = 100
	res.ClientCPUPct = float64(self1-self0) / 100 / t1.Sub(t0).Seconds() * 100
	res.CPUPer1000 = res.EdgeCPUPct / float64(n) * 1000
	res.RSSMiB = float64(rss) / 1024
	res.RSSPer1000MiB = res.RSSMiB / float64(n) * 1000
	mu.Lock()
	slices.Sort(delays)
	if len(delays) > 0 {
		res.P50Ms = ms(delays[len(delays)/2])
		res.P99Ms = ms(delays[len(delays)*99/100])
		res.MaxMs = ms(delays[len(delays)-1])
	}
	mu.Unlock()
	cancel()
	for _, c := range conns {
		c.CloseWithError(0, "")
	}
	wg.Wait()
	return res, nil
}

// cpuProfile saves the edge's CPU profile over the next d, from Caddy's
// admin endpoint.
func cpuProfile(admin string, d time.Duration, file string) error {
	resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", admin, int(d.Seconds())))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("CPU profile: %s", resp.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func dial(ctx context.Context, addr string) (*webtransport.ClientConn, *quic.Conn, error) {
	return wtclient.Connect(ctx, addr, &tls.Config{InsecureSkipVerify: true, ServerName: "localhost"},
		&quic.Config{MaxIncomingUniStreams: 10000, KeepAlivePeriod: 10 * time.Second})
}

// subscribe opens one session, subscribes to the bench channel and calls
// got with each event's emit time until ctx ends.
func subscribe(ctx context.Context, client *webtransport.ClientConn, addr string, got func(emitNanos int64), subscribed *atomic.Int64) error {
	_, s, err := client.Dial(ctx, "https://localhost:"+strings.Split(addr, ":")[1]+"/live", nil)
	if err != nil {
		return err
	}
	defer s.CloseWithError(0, "")
	ctrl, err := s.OpenStreamSync(ctx)
	if err != nil {
		return err
	}
	if _, err := ctrl.Write([]byte(`{"op":"subscribe","channel":"bench"}` + "\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(ctrl).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.Contains(line, `"subscribed"`) {
		return fmt.Errorf("subscribe: %s", line)
	}
	uni, err := s.AcceptUniStream(ctx)
	if err != nil {
		return err
	}
	subscribed.Add(1)
	r := bufio.NewReader(uni)
	if _, err := r.ReadString('\n'); err != nil { // the channel header
		return err
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		}
		var ev struct{ Data string }
		if json.Unmarshal([]byte(line), &ev) == nil {
			if emit, err := strconv.ParseInt(ev.Data, 10, 64); err == nil {
				got(emit)
			}
		}
	}
}

func waitUp(ctx context.Context, addr string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, conn, err := dial(ctx, addr)
		if err == nil {
			conn.CloseWithError(0, "")
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("edge not up: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func freePort() string {
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if u, err := net.ListenPacket("udp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			u.Close()
			return strconv.Itoa(port)
		}
	}
}

// cpuTicks is the process's user+system time in clock ticks.
func cpuTicks(pid int) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

func rssKiB(pid int) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
