//go:build linux

package main

import (
	"fmt"
	"strings"
	"sync"

	"github.com/lastmile-edge/lastmile/loadtest/netlab"
)

// ---- experiment 4: QUIC transfers: long fat lossy, throttled lossy, fairness ----

// transferVariant is one download's protocol and the edge's controllers.
type transferVariant struct {
	name             string
	proto            string // h2 or h3
	clientCC, quicCC string
}

var transferVariants = []transferVariant{
	{"h3 (bbr)", "h3", "bbr", "bbr"},
	{"h3 (quic-go reno)", "h3", "cubic", "reno"},
	{"h2 (TCP bbr)", "h2", "bbr", "bbr"},
	{"h2 (TCP cubic)", "h2", "cubic", "reno"},
}

// clean is the edge-to-origin link of these experiments: no delay, no
// loss, so the last mile is the only bottleneck.
var clean = netlab.Profile{Source: "no impairment"}

// transferSections are quic-transfer's parts, in order; -only picks some.
var transferSections = []string{"long-fat-lossy", "throttled-lossy", "fairness"}

func (r *runner) quicTransfer() error {
	run := map[string]bool{}
	for _, name := range transferSections {
		run[name] = r.only == ""
	}
	if r.only != "" {
		for _, name := range strings.Split(r.only, ",") {
			if _, ok := run[name]; !ok {
				return fmt.Errorf("quic-transfer -only: %q is none of %s", name, strings.Join(transferSections, ","))
			}
			run[name] = true
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Client -- edge over the profile, edge -- origin clean; the client downloads from the origin through the edge (no-store: streamed, not cached). The edge's QUIC controller is lastmile's BBR or quic-go's own (NewReno); its client TCP is BBR or CUBIC (client_tcp). The field figure (AWS: CUBIC 10.5 vs BBR 333 Mbit/s at 100 ms and 1.5%% loss, 32x) is for TCP; the edge, the client and the emulator share 2 cores, which caps what any flow here can reach.\n\n")
	if run["long-fat-lossy"] {
		lossy, err := r.profiles.Get("long-fat-lossy")
		if err != nil {
			return err
		}
		b.WriteString("## 50 MB over long-fat-lossy (" + lossy.Source + ")\n\n| variant | Mbit/s | vs h3 (quic-go reno) | seconds | complete |\n|---|---|---|---|---|\n")
		rows, err := r.downloads(lossy, 50<<20, 120)
		if err != nil {
			return err
		}
		b.WriteString(rows)
	}
	if run["throttled-lossy"] {
		throttled, err := r.profiles.Get("throttled-lossy")
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "\n## One flow's use of throttled-lossy (%s), %d s\n\n| variant | Mbit/s | vs h3 (quic-go reno) | seconds | complete |\n|---|---|---|---|---|\n", throttled.Source, r.seconds)
		rows, err := r.downloads(throttled, 256<<20, r.seconds)
		if err != nil {
			return err
		}
		b.WriteString(rows)
		fmt.Fprintf(&b, "\nUtilisation is Mbit/s over the link's %.0f Mbit/s (the field reports about 74%% for one TCP flow at 5%% loss).\n", *throttled.RateMbit)
	}
	if run["fairness"] {
		fair, err := r.fairness()
		if err != nil {
			return err
		}
		b.WriteString(fair)
	}
	return r.writeResult("quic-transfer", "Experiment 4: QUIC transfers on lossy links and fairness to TCP", b.String(), nil)
}

// downloads fetches bytes through the edge over p with each variant, for
// at most maxSecs each, and renders the table rows.
func (r *runner) downloads(p netlab.Profile, bytes, maxSecs int) (string, error) {
	var rows strings.Builder
	var base float64
	results := map[string]fetchResult{}
	for _, v := range transferVariants {
		s, err := r.viaEdge(p, clean, edgeOptions{clientCC: v.clientCC, quicCC: v.quicCC})
		if err != nil {
			return "", err
		}
		var res fetchResult
		if err := helper(s.lab, "client", &res, "fetch", "-proto", v.proto, "-max-time", fmt.Sprintf("%ds", maxSecs),
			"-url", fmt.Sprintf("%s/download?bytes=%d", s.url, bytes)); err != nil {
			return "", fmt.Errorf("%s: %w", v.name, err)
		}
		if res.Errors > 0 && res.Partial == 0 {
			return "", fmt.Errorf("%s: the download failed", v.name)
		}
		fmt.Printf("%-20s %.1f Mbit/s in %.1f s\n", v.name, res.Mbit, res.TotalMs/1000)
		results[v.name] = res
		if v.quicCC == "reno" && v.proto == "h3" {
			base = res.Mbit
		}
	}
	for _, v := range transferVariants {
		res := results[v.name]
		fmt.Fprintf(&rows, "| %s | %.1f | %.2fx | %.1f | %s |\n", v.name, res.Mbit, res.Mbit/base, res.TotalMs/1000, yesNo(res.Partial == 0))
	}
	return rows.String(), nil
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no (cut at the time limit)"
}

// fairness runs one HTTP/3 download on the edge's BBR and one TCP CUBIC
// flow from the edge through the same bottleneck (a drop-tail queue of
// one bandwidth-delay product), and a UDP probe that sees the queue.
func (r *runner) fairness() (string, error) {
	rate := 20.0
	link := netlab.Profile{RTTms: 40, RateMbit: &rate, Source: "20 Mbit/s, 40 ms RTT, no random loss, drop-tail queue of one BDP"}
	s, err := r.viaEdge(link, clean, edgeOptions{clientCC: "bbr", quicCC: "bbr"})
	if err != nil {
		return "", err
	}
	if _, err := s.lab.Start("client", nil, self(), "tcp-sink", "-addr", s.clientAddr+":5201"); err != nil {
		return "", err
	}
	if _, err := s.lab.Start("edge", nil, self(), "echo-server", "-addr", s.edgeAddr+":7"); err != nil {
		return "", err
	}
	if err := s.lab.WaitTCP(r.ctx, "edge", s.clientAddr+":5201", s.lastMile); err != nil {
		return "", err
	}
	secs := r.seconds
	var (
		wg   sync.WaitGroup
		h3   fetchResult
		tcp  sendResult
		ping pingResult
		errs = make([]error, 3)
	)
	wg.Go(func() {
		errs[0] = helper(s.lab, "client", &h3, "fetch", "-proto", "h3", "-max-time", fmt.Sprintf("%ds", secs),
			"-url", fmt.Sprintf("%s/download?bytes=%d", s.url, 256<<20))
	})
	wg.Go(func() {
		errs[1] = helper(s.lab, "edge", &tcp, "tcp-send", "-addr", s.clientAddr+":5201", "-cc", "cubic", "-d", fmt.Sprintf("%ds", secs))
	})
	wg.Go(func() {
		errs[2] = helper(s.lab, "client", &ping, "ping", "-addr", s.edgeAddr+":7", "-n", fmt.Sprint(secs*20), "-interval", "50ms")
	})
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return "", err
		}
	}
	rtts := series{Values: ping.RTTsMs}.sorted()
	total := h3.Mbit + tcp.Mbit
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Fairness: HTTP/3 on BBR against TCP CUBIC (%s), %d s together\n\n| flow | Mbit/s | share |\n|---|---|---|\n| HTTP/3 download (edge's BBR) | %.1f | %.0f%% |\n| TCP CUBIC from the edge | %.1f | %.0f%% |\n\n",
		link.Source, secs, h3.Mbit, 100*h3.Mbit/total, tcp.Mbit, 100*tcp.Mbit/total)
	fmt.Fprintf(&b, "Queue delay seen by a UDP probe every 50 ms: p50 %.0f ms, p95 %.0f ms over the link's %.0f ms RTT (%d of %d probes answered). The goal: the CUBIC flow keeps at least a third of the link: %s.\n",
		percentile(rtts, 50)-link.RTTms, percentile(rtts, 95)-link.RTTms, link.RTTms, ping.Received, ping.Sent, metMark(tcp.Mbit >= total/3))
	fmt.Printf("fairness: h3 bbr %.1f Mbit/s, tcp cubic %.1f Mbit/s, probe p50 %.0f ms\n", h3.Mbit, tcp.Mbit, percentile(rtts, 50))
	return b.String(), nil
}
