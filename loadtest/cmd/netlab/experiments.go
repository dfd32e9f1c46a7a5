//go:build linux

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lastmile-edge/lastmile/loadtest/netlab"
	"github.com/lastmile-edge/lastmile/loadtest/netlab/qlogstat"
)

type runner struct {
	ctx      context.Context
	out      string
	runs     int
	seconds  int
	profiles netlab.Profiles
	edge     edgeBinary
	only     string              // quic-mobile's profiles, quic-transfer's parts, comma-separated
	variants []quicMobileVariant // quic-mobile's variants (-variants)
	qlog     string              // -qlog: where traces are kept; "" for temporary

	mu  sync.Mutex
	lab *netlab.Lab
}

// newLab replaces the current lab; a signal tears the lab down at once.
func (r *runner) newLab() (*netlab.Lab, error) {
	r.closeLab()
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	lab, err := netlab.NewLab()
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.lab = lab
	r.mu.Unlock()
	go func() {
		<-r.ctx.Done()
		r.closeLab()
	}()
	return lab, nil
}

func (r *runner) closeLab() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lab != nil {
		if err := r.lab.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "netlab: teardown:", err)
		}
		r.lab = nil
	}
}

func self() string {
	exe, err := os.Executable()
	if err != nil {
		return os.Args[0]
	}
	return exe
}

// helper runs one of this binary's helpers in a namespace and decodes its
// JSON output into v.
func helper(lab *netlab.Lab, ns string, v any, name string, args ...string) error {
	out, err := lab.Output(ns, self(), append([]string{name}, args...)...)
	if err != nil {
		return err
	}
	return json.Unmarshal(out, v)
}

// ---- self-test ----

type pingOutcome struct {
	name                 string
	rtt, jitter          float64
	wantLoss             float64
	median, p95, gotLoss float64
	rttOK, lossOK        bool
	sent, received       int
}

func (r *runner) measurePing(name string, n int) (pingOutcome, error) {
	p, err := r.profiles.Get(name)
	if err != nil {
		return pingOutcome{}, err
	}
	lab, err := r.newLab()
	if err != nil {
		return pingOutcome{}, err
	}
	for _, ns := range []string{"a", "b"} {
		if err := lab.AddNS(ns); err != nil {
			return pingOutcome{}, err
		}
	}
	lk, err := lab.Connect("a", "b", p.Impairment())
	if err != nil {
		return pingOutcome{}, err
	}
	if _, err := lab.Start("b", nil, self(), "echo-server", "-addr", lk.AddrB+":7"); err != nil {
		return pingOutcome{}, err
	}
	time.Sleep(300 * time.Millisecond)
	var res struct {
		Sent     int       `json:"sent"`
		Received int       `json:"received"`
		RTTsMs   []float64 `json:"rtts_ms"`
	}
	// Probes further apart than the jitter spread: packets in quick
	// succession keep their order, which stretches the delay of a packet
	// that drew less jitter than the one before it; ping-like probes
	// should see the link's own distribution.
	interval := max(20*time.Millisecond, time.Duration(p.JitterMs*float64(time.Millisecond)))
	n = min(n, int(30*time.Second/interval))
	if err := helper(lab, "a", &res, "ping", "-addr", lk.AddrB+":7", "-n", fmt.Sprint(n), "-interval", interval.String(),
		"-wait", fmt.Sprint(time.Duration(p.RTTms*3+p.JitterMs*3+1000)*time.Millisecond)); err != nil {
		return pingOutcome{}, err
	}
	slices.Sort(res.RTTsMs)
	o := pingOutcome{name: name, rtt: p.RTTms, jitter: p.JitterMs, sent: res.Sent, received: res.Received}
	o.wantLoss = 1 - (1-p.Loss)*(1-p.Loss) // both directions
	o.gotLoss = 1 - float64(res.Received)/float64(res.Sent)
	o.median, o.p95 = percentile(res.RTTsMs, 50), percentile(res.RTTsMs, 95)
	// Tolerance: the median RTT within 5% + 2 ms of the profile (the
	// jitter is symmetric around it); the loss within 4 standard errors
	// of the round trip's (bursty losses are correlated: 4 more).
	o.rttOK = math.Abs(o.median-o.rtt) <= 0.05*o.rtt+2
	se := math.Sqrt(o.wantLoss*(1-o.wantLoss)/float64(n)) * math.Max(1, math.Sqrt(p.BurstLen))
	o.lossOK = math.Abs(o.gotLoss-o.wantLoss) <= 4*se+1.0/float64(n)
	o.sent = n
	return o, nil
}

type throughput struct {
	name          string
	mbit, pps     float64
	emulatorMbit  float64
	cc            string
	lost          int64 // packets the link lost at random
	queueDrops    int64 // packets the full queue dropped
	packetsMoved  int64
	transferBytes int64
}

// measureTCP runs one TCP transfer from a to b over stages.
func (r *runner) measureTCP(name, cc string, secs int, stages ...netlab.Impairment) (throughput, error) {
	lab, err := r.newLab()
	if err != nil {
		return throughput{}, err
	}
	for _, ns := range []string{"a", "b"} {
		if err := lab.AddNS(ns); err != nil {
			return throughput{}, err
		}
	}
	lk, err := lab.Connect("a", "b", stages...)
	if err != nil {
		return throughput{}, err
	}
	if _, err := lab.Start("b", nil, self(), "tcp-sink", "-addr", lk.AddrB+":5201"); err != nil {
		return throughput{}, err
	}
	if err := lab.WaitTCP(r.ctx, "a", lk.AddrB+":5201", lk); err != nil {
		return throughput{}, err
	}
	in0, bytes0 := lk.AtoB.Out.Load(), lk.AtoB.BytesOut.Load()
	start := time.Now()
	var res struct {
		CC    string  `json:"cc"`
		Bytes int64   `json:"bytes"`
		Mbit  float64 `json:"mbit_per_s"`
	}
	if err := helper(lab, "a", &res, "tcp-send", "-addr", lk.AddrB+":5201", "-cc", cc, "-d", fmt.Sprintf("%ds", secs)); err != nil {
		return throughput{}, err
	}
	el := time.Since(start).Seconds()
	moved := lk.AtoB.Out.Load() - in0
	return throughput{name: name, cc: res.CC, mbit: res.Mbit, pps: float64(moved+lk.BtoA.Out.Load()) / el,
		emulatorMbit: float64(lk.AtoB.BytesOut.Load()-bytes0) * 8 / el / 1e6, lost: lk.AtoB.Lost.Load(), queueDrops: lk.AtoB.QueueDrops.Load(),
		packetsMoved: moved, transferBytes: res.Bytes}, nil
}

func (r *runner) selftest() error {
	names := make([]string, 0, len(r.profiles))
	for n := range r.profiles {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString("Each profile is one emulated link between two namespaces. A UDP echo measures it from one side: 500 probes 20 ms apart, or, where the jitter is wider than 20 ms, probes one jitter spread apart for 30 s (packets in quick succession keep their order, which stretches the delays of those that drew less jitter than their predecessor, so close probes would not see the link's own distribution). The round-trip loss expected is 1-(1-loss)^2. Tolerances: median RTT within 5% + 2 ms of the profile's; loss within 4 standard errors (x sqrt(burst_len) for bursty loss) plus one probe.\n\n")
	b.WriteString("| profile | RTT ms | jitter ms | probes | median RTT ms | p95 RTT ms | round-trip loss expected | measured | RTT | loss |\n|---|---|---|---|---|---|---|---|---|---|\n")
	var failed []string
	for _, n := range names {
		o, err := r.measurePing(n, 500)
		if err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
		fmt.Printf("%-22s rtt %6.1f median %7.2f p95 %7.2f loss want %.4f got %.4f\n", n, o.rtt, o.median, o.p95, o.wantLoss, o.gotLoss)
		fmt.Fprintf(&b, "| %s | %.0f | %.0f | %d | %.1f | %.1f | %.2f%% | %.2f%% | %s | %s |\n", n, o.rtt, o.jitter, o.sent, o.median, o.p95,
			o.wantLoss*100, o.gotLoss*100, okMark(o.rttOK), okMark(o.lossOK))
		if !o.rttOK || !o.lossOK {
			failed = append(failed, n)
		}
	}
	clean, err := r.profiles.Get("loopback-clean-100ms")
	if err != nil {
		return err
	}
	ceiling, err := r.measureTCP("no delay", "cubic", 8, netlab.Impairment{})
	if err != nil {
		return err
	}
	link, err := r.measureTCP("clean 100 ms", "cubic", 15, clean.Impairment())
	if err != nil {
		return err
	}
	fmt.Printf("emulator ceiling: %.0f Mbit/s, %.0f packets/s; clean 100 ms link: %.0f Mbit/s\n", ceiling.mbit, ceiling.pps, link.mbit)
	fmt.Fprintf(&b, "\n## TCP throughput and the emulator's ceiling\n\nOne CUBIC flow between the namespaces (socket buffers up to 32 MB):\n\n| link | Mbit/s | packets/s through the emulator (both directions) |\n|---|---|---|\n| no delay, no loss (the emulator's ceiling) | %.0f | %.0f |\n| clean 100 ms | %.0f | %.0f |\n",
		ceiling.mbit, ceiling.pps, link.mbit, link.pps)
	fmt.Fprintf(&b, "\nThe emulator is one Go process reading and writing TUN devices, a packet per system call; on this 2-core machine it carries about %.0f packets/s (%.0f Mbit/s of 1500-byte packets). A 100 ms path needs a window of rate x 100 ms: the clean 100 ms link reached %.0f%% of the ceiling.\n",
		ceiling.pps, ceiling.mbit, 100*link.mbit/ceiling.mbit)
	if err := r.writeResult("selftest", "Network lab self-test", b.String(), nil); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("profiles outside tolerance: %v", failed)
	}
	return nil
}

func okMark(ok bool) string {
	if ok {
		return "ok"
	}
	return "FAIL"
}

// ---- topologies with the edge ----

// site is a running topology: where the client loads pages from, and
// (via the edge) the two ends of the last mile and its link.
type site struct {
	lab                  *netlab.Lab
	url                  string
	clientAddr, edgeAddr string
	lastMile             *netlab.Link // A is the client, B the edge
}

// direct: client --[last mile + backbone in series]-- origin.
func (r *runner) direct(lastMile, backbone netlab.Profile) (*site, error) {
	lab, err := r.newLab()
	if err != nil {
		return nil, err
	}
	for _, ns := range []string{"client", "origin"} {
		if err := lab.AddNS(ns); err != nil {
			return nil, err
		}
	}
	lk, err := lab.Connect("client", "origin", lastMile.Impairment(), backbone.Impairment())
	if err != nil {
		return nil, err
	}
	if _, err := lab.Start("origin", nil, self(), "origin", "-http", lk.AddrB+":8080", "-https", lk.AddrB+":443"); err != nil {
		return nil, err
	}
	if err := lab.WaitTCP(r.ctx, "client", lk.AddrB+":443", lk); err != nil {
		return nil, err
	}
	return &site{lab: lab, url: "https://" + lk.AddrB}, nil
}

// edgeOptions are what an experiment varies on the edge.
type edgeOptions struct {
	clientCC string // the edge's client TCP congestion control (client_tcp)
	quicCC   string // the quic app's congestion_control; "" for its default
	qlogDir  string // where the edge writes qlog traces; "" for none
}

// viaEdge: client --[last mile]-- edge --[backbone]-- origin, with the
// real lastmile edge caching in between.
func (r *runner) viaEdge(lastMile, backbone netlab.Profile, opts edgeOptions) (*site, error) {
	lab, user, back, err := r.edgeLab(lastMile, backbone)
	if err != nil {
		return nil, err
	}
	if _, err := lab.Start("origin", nil, self(), "origin", "-http", back.AddrB+":8080", "-https", back.AddrB+":443"); err != nil {
		return nil, err
	}
	cache := fmt.Sprintf("\tedge_cache\n\treverse_proxy http://%s:8080\n", back.AddrB)
	if err := r.startEdge(lab, user, opts, cache); err != nil {
		return nil, err
	}
	if err := lab.WaitTCP(r.ctx, "edge", back.AddrB+":8080", back); err != nil {
		return nil, err
	}
	return &site{lab: lab, url: "https://" + user.AddrB, clientAddr: user.AddrA, edgeAddr: user.AddrB, lastMile: user}, nil
}

// edgeLab is a new lab with namespaces client, edge and origin, and the
// links user (client --[last mile]-- edge) and back (edge --[backbone]--
// origin), the edge binary ready to start in it.
func (r *runner) edgeLab(lastMile, backbone netlab.Profile) (lab *netlab.Lab, user, back *netlab.Link, err error) {
	if err := r.edge.prepare(); err != nil {
		return nil, nil, nil, err
	}
	if lab, err = r.newLab(); err != nil {
		return nil, nil, nil, err
	}
	for _, ns := range []string{"client", "edge", "origin"} {
		if err := lab.AddNS(ns); err != nil {
			return nil, nil, nil, err
		}
	}
	if user, err = lab.Connect("client", "edge", lastMile.Impairment()); err != nil {
		return nil, nil, nil, err
	}
	if back, err = lab.Connect("edge", "origin", backbone.Impairment()); err != nil {
		return nil, nil, nil, err
	}
	return lab, user, back, nil
}

// startEdge runs the edge in namespace "edge" with siteDirectives serving
// https://<user.AddrB> (a certificate of its own CA), and waits until the
// client namespace reaches it across user.
func (r *runner) startEdge(lab *netlab.Lab, user *netlab.Link, opts edgeOptions, siteDirectives string) error {
	dir, err := lab.MkdirTemp("netlab-edge")
	if err != nil {
		return err
	}
	var quic strings.Builder
	if opts.quicCC != "" {
		fmt.Fprintf(&quic, "\t\tcongestion_control %s\n", opts.quicCC)
	}
	if opts.qlogDir != "" {
		fmt.Fprintf(&quic, "\t\tqlog_dir %s\n", opts.qlogDir)
	}
	cfg := fmt.Sprintf(`{
	# The edge namespace's own loopback: read with site.edgeMetric.
	admin 127.0.0.1:2019
	skip_install_trust
	servers {
		protocols h1 h2
		listener_wrappers {
			client_tcp {
				congestion_control %s
			}
		}
	}
	quic {
%s	}
}
https://%s {
	tls internal
	alt_svc
%s}
`, opts.clientCC, quic.String(), user.AddrB, siteDirectives)
	if err := os.WriteFile(filepath.Join(dir, "Caddyfile"), []byte(cfg), 0o644); err != nil {
		return err
	}
	if _, err := lab.Start("edge", []string{"XDG_DATA_HOME=" + dir, "XDG_CONFIG_HOME=" + dir}, r.edge.abs, "run", "--config", filepath.Join(dir, "Caddyfile")); err != nil {
		return err
	}
	return lab.WaitTCP(r.ctx, "client", user.AddrB+":443", user)
}

// pageLoadSeries is one variant's page loads.
type pageLoadSeries struct {
	ttfb, load series
	bytes      float64 // a page's bytes (its body and its subresources'), the median
	// htmlFromOrigin counts the loads whose HTML the edge fetched first
	// (loadResult.HTMLFromOrigin).
	htmlFromOrigin int
}

// pageLoads runs the page-load workload from the client namespace. Via
// an edge, the pages are primed first (primePages), so no variant starts
// on copies the edge must revalidate.
func (s *site) pageLoads(proto, mode string, runs int) (pageLoadSeries, error) {
	var res []loadResult
	args := []string{"-url", s.url, "-proto", proto, "-mode", mode, "-runs", fmt.Sprint(runs)}
	if s.edgeAddr != "" {
		args = append(args, "-prime")
	}
	if err := helper(s.lab, "client", &res, "pageload", args...); err != nil {
		return pageLoadSeries{}, err
	}
	var out pageLoadSeries
	var bytes []float64
	var errs []error
	for _, r := range res {
		if r.Err != "" {
			errs = append(errs, errors.New(r.Err))
			continue
		}
		if r.HTMLFromOrigin {
			out.htmlFromOrigin++
		}
		out.ttfb.Values = append(out.ttfb.Values, r.TTFBMs)
		out.load.Values = append(out.load.Values, r.LoadMs)
		bytes = append(bytes, float64(r.Bytes))
	}
	if len(errs) > len(res)/10 {
		return out, fmt.Errorf("%d of %d page loads failed: %v", len(errs), len(res), errs[0])
	}
	if len(errs) > 0 {
		// A few failures are tolerated, so the run's log must say why.
		fmt.Printf("%s %s: %d of %d page loads failed, left out of the figures: %v\n", proto, mode, len(errs), len(res), errors.Join(errs...))
	}
	slices.Sort(bytes)
	out.bytes = percentile(bytes, 50)
	return out, nil
}

// ---- experiment 1: split loop ----

func (r *runner) splitLoop() error {
	wifi, err := r.profiles.Get("wifi-last-meters")
	if err != nil {
		return err
	}
	backbone, err := r.profiles.Get("backbone-2000km")
	if err != nil {
		return err
	}
	var ttfbs, loads []series
	for _, topo := range []string{"direct", "via-edge"} {
		for _, mode := range []string{"cold", "warm"} {
			var s *site
			if topo == "direct" {
				s, err = r.direct(wifi, backbone)
			} else {
				s, err = r.viaEdge(wifi, backbone, edgeOptions{clientCC: "bbr"})
			}
			if err != nil {
				return fmt.Errorf("%s: %w", topo, err)
			}
			pl, err := s.pageLoads("h2", mode, r.runs)
			if err != nil {
				return fmt.Errorf("%s %s: %w", topo, mode, err)
			}
			t, l := pl.ttfb, pl.load
			t.Name, l.Name = topo+" "+mode, topo+" "+mode
			ttfbs, loads = append(ttfbs, t), append(loads, l)
			fmt.Printf("%-16s TTFB p50 %.0f ms, load p50 %.0f ms\n", t.Name, percentile(t.sorted(), 50), percentile(l.sorted(), 50))
		}
	}
	order := func(ss []series) []series { return []series{ss[0], ss[2], ss[1], ss[3]} }
	body := fmt.Sprintf(`Topologies over wifi-last-meters (10 ms, 5%% loss, 50 Mbit/s) and backbone-2000km (90 ms, no loss): direct = client to origin through both in series; via-edge = client to the lastmile edge over the last mile, edge to origin over the backbone, the edge caching (pages s-maxage=1 with stale-while-revalidate, images for a day). HTTP/2 over TLS from the client in both. A page load is the HTML, then 15 subresources in parallel (CSS, JS, 8 small images, 4 photos of 40 KB, a JSON API). Cold: a new connection per load; warm: one kept connection. %d loads per variant.

## Time to first byte of the HTML (ms)

%s
## Full page load (ms)

%s
![full page load CDF](split-loop.svg)
`, r.runs, percentileTable("ms", order(ttfbs)), percentileTable("ms", order(loads)))
	return r.writeResult("split-loop", "Experiment 1: split loop (direct vs via-edge)", body,
		map[string]string{"split-loop.svg": cdfSVG("Full page load, wifi-last-meters + backbone-2000km", "ms", order(loads))})
}

// command is how this run was started, for the results it writes.
func (r *runner) command() string {
	return "go run ./loadtest/cmd/netlab " + strings.Join(os.Args[1:], " ")
}

// ---- experiment 3: congestion control ----

func (r *runner) congestionControl() error {
	var names []string
	var mbits []float64
	var b strings.Builder
	fmt.Fprintf(&b, "One TCP transfer of %d s between two namespaces, congestion control set per socket (TCP_CONGESTION, read back).\n\n| profile | congestion control | Mbit/s | emulator Mbit/s | packets lost (random) | packets dropped by the full queue |\n|---|---|---|---|---|---|\n", r.seconds)
	for _, name := range []string{"long-fat-clean", "long-fat-lossy"} {
		p, err := r.profiles.Get(name)
		if err != nil {
			return err
		}
		for _, cc := range []string{"cubic", "bbr"} {
			t, err := r.measureTCP(name, cc, r.seconds, p.Impairment())
			if err != nil {
				return fmt.Errorf("%s %s: %w", name, cc, err)
			}
			fmt.Printf("%-16s %-6s %7.1f Mbit/s\n", name, cc, t.mbit)
			fmt.Fprintf(&b, "| %s | %s | %.1f | %.1f | %d | %d |\n", name, t.cc, t.mbit, t.emulatorMbit, t.lost, t.queueDrops)
			names = append(names, strings.TrimPrefix(name, "long-fat-")+" "+cc)
			mbits = append(mbits, t.mbit)
		}
	}
	b.WriteString("\n![throughput](cc.svg)\n")
	return r.writeResult("cc", "Experiment 3: CUBIC vs BBR on a long fat lossy link", b.String(),
		map[string]string{"cc.svg": barSVG("One TCP flow, 100 ms RTT, 1 Gbit/s link", "Mbit/s", names, mbits)})
}

// ---- smoke ----

// smoke is the CI version: one profile's self-test and a few page loads
// over HTTP/2 and HTTP/3 through the edge, in about a minute.
func (r *runner) smoke() error {
	o, err := r.measurePing("wifi-last-meters", 200)
	if err != nil {
		return err
	}
	fmt.Printf("smoke: wifi-last-meters median RTT %.1f ms (profile %.0f), loss %.2f%% (expected %.2f%%)\n", o.median, o.rtt, o.gotLoss*100, o.wantLoss*100)
	if !o.rttOK || !o.lossOK {
		return fmt.Errorf("smoke: link outside tolerance")
	}
	wifi, _ := r.profiles.Get("wifi-last-meters")
	backbone, _ := r.profiles.Get("backbone-2000km")
	qdir, err := os.MkdirTemp("", "netlab-qlog")
	if err != nil {
		return err
	}
	defer os.RemoveAll(qdir)
	s, err := r.viaEdge(wifi, backbone, edgeOptions{clientCC: "bbr", qlogDir: qdir})
	if err != nil {
		return err
	}
	for _, proto := range []string{"h2", "h3"} {
		pl, err := s.pageLoads(proto, "cold", 3)
		if err != nil {
			return fmt.Errorf("smoke %s: %w", proto, err)
		}
		l := pl.load
		if len(l.Values) != 3 {
			return fmt.Errorf("smoke %s: %d of 3 page loads", proto, len(l.Values))
		}
		fmt.Printf("smoke: %s page loads via edge: %v ms\n", proto, l.Values)
	}
	// The edge's own view of the last mile: the share of its QUIC packets
	// lost on a link that drops wifi.Loss of them.
	sent, err := s.edgeMetric("lastmile_quic_packets_sent_total")
	if err != nil {
		return err
	}
	lost, err := s.edgeMetric("lastmile_quic_packets_lost_total")
	if err != nil {
		return err
	}
	fmt.Printf("smoke: the edge lost %.0f of %.0f QUIC packets (%.1f%%; the link drops %.0f%%)\n", lost, sent, 100*lost/sent, 100*wifi.Loss)
	if sent < 100 || lost/sent < wifi.Loss/3 || lost/sent > wifi.Loss*3 {
		return fmt.Errorf("smoke: the edge's QUIC loss metric (%.0f of %.0f) does not match the link's %.0f%%", lost, sent, 100*wifi.Loss)
	}
	return s.smokeKeptRate(qdir)
}

// smokeKeptRate checks that a kept HTTP/3 connection on the lossy link
// keeps its sending rate across page loads: a loss-based window that each
// random loss cuts (quic-go's NewReno at 5% loss settles near 6 packets)
// starts later pages with a fraction of the window the first page had.
func (s *site) smokeKeptRate(qdir string) error {
	before, err := traceFiles(qdir)
	if err != nil {
		return err
	}
	if _, err := s.pageLoads("h3", "warm", 8); err != nil {
		return fmt.Errorf("smoke h3 kept: %w", err)
	}
	if err := s.waitQUICClosed(); err != nil {
		return err
	}
	traces, err := qlogstat.ReadDir(qdir)
	if err != nil {
		return err
	}
	for file, pages := range traces {
		if before[file] {
			continue
		}
		if len(pages) < 9 {
			return fmt.Errorf("smoke h3 kept: %d pages in the edge's trace, want 9", len(pages))
		}
		var later []float64
		for _, p := range pages[len(pages)-4:] {
			later = append(later, float64(p.CwndAtStart))
		}
		slices.Sort(later)
		first, median := float64(pages[0].CwndAtStart), percentile(later, 50)
		fmt.Printf("smoke: kept HTTP/3 connection: window %.0f KB at the first page, %.0f KB (median) at the last four\n", first/1000, median/1000)
		if median < first/2 {
			return fmt.Errorf("smoke: the kept HTTP/3 connection's window fell from %.0f KB to %.0f KB across page loads on a lossy link", first/1000, median/1000)
		}
		return nil
	}
	return errors.New("smoke h3 kept: the edge wrote no trace for the kept connection")
}

// edgeMetric reads one unlabelled sample from the edge's /metrics, inside
// its namespace.
func (s *site) edgeMetric(name string) (float64, error) {
	out, err := s.lab.Output("edge", "curl", "-sf", "http://127.0.0.1:2019/metrics")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(out)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+" "); ok {
			return strconv.ParseFloat(v, 64)
		}
	}
	return 0, fmt.Errorf("%s not in the edge's metrics", name)
}
