//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lastmile-edge/lastmile/loadtest/netlab"
)

// originLink compares, on long-fat-lossy between edge and origin, Caddy's
// default HTTP transport (cold connections, the system's CUBIC) with the
// origin_link transport (warm HTTP/2 pool, BBR, buffers for 1 Gbit/s x 100
// ms): the first request's time to first byte, a 50 MB transfer and a
// burst of 100 requests. Run once with the origin sending with CUBIC and
// once with BBR, since a response's throughput is the sender's congestion
// control: the edge's socket options govern what the edge sends.
func (r *runner) originLink() error {
	if err := r.edge.prepare(); err != nil {
		return err
	}
	lossy, err := r.profiles.Get("long-fat-lossy")
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Client -- edge over a clean link; edge -- origin over long-fat-lossy (%s). The edge serves two ports: Caddy's default `http` transport with keep-alives off (cold connections, the namespace's default congestion control, CUBIC) and `origin_link` (4 warm h2c connections, BBR, buffers for 1 Gbit/s x 100 ms). No cache. Measured from the client: the first request after the edge starts, one 50 MB transfer, and a burst of 100 parallel API requests.\n\n", lossy.Source)
	b.WriteString("| origin sends with | transport | first request TTFB ms | 50 MB transfer Mbit/s | burst of 100: total ms | burst p50 TTFB ms | burst p95 TTFB ms |\n|---|---|---|---|---|---|---|\n")
	var names []string
	var mbits []float64
	for _, originCC := range []string{"cubic", "bbr"} {
		lab, err := r.newLab()
		if err != nil {
			return err
		}
		for _, ns := range []string{"client", "edge", "origin"} {
			if err := lab.AddNS(ns); err != nil {
				return err
			}
		}
		user, err := lab.Connect("client", "edge", netlab.Impairment{})
		if err != nil {
			return err
		}
		back, err := lab.Connect("edge", "origin", lossy.Impairment())
		if err != nil {
			return err
		}
		if _, err := lab.Start("origin", nil, self(), "origin", "-cc", originCC, "-http", back.AddrB+":8080", "-https", back.AddrB+":443"); err != nil {
			return err
		}
		if err := lab.WaitTCP(r.ctx, "edge", back.AddrB+":8080", back); err != nil {
			return err
		}
		dir, err := lab.MkdirTemp("netlab-originlink")
		if err != nil {
			return err
		}
		cfg := fmt.Sprintf(`{
	admin off
	auto_https off
}
http://%[1]s:8001 {
	reverse_proxy http://%[2]s:8080 {
		transport http {
			keepalive off
		}
	}
}
http://%[1]s:8002 {
	reverse_proxy %[2]s:8080 {
		transport origin_link {
			warm %[2]s:8080
			pool_size 4
			path_bandwidth 1Gbit
			path_rtt 100ms
		}
	}
}
`, user.AddrB, back.AddrB)
		if err := os.WriteFile(filepath.Join(dir, "Caddyfile"), []byte(cfg), 0o644); err != nil {
			return err
		}
		if _, err := lab.Start("edge", []string{"XDG_DATA_HOME=" + dir, "XDG_CONFIG_HOME=" + dir}, r.edge.abs, "run", "--config", filepath.Join(dir, "Caddyfile")); err != nil {
			return err
		}
		for _, port := range []string{"8001", "8002"} {
			if err := lab.WaitTCP(r.ctx, "client", user.AddrB+":"+port, user); err != nil {
				return err
			}
		}
		for _, v := range []struct{ name, port string }{{"default http", "8001"}, {"origin_link", "8002"}} {
			base := "http://" + user.AddrB + ":" + v.port
			var first, big, burst fetchResult
			if err := helper(lab, "client", &first, "fetch", "-url", base+"/api/products?page=1"); err != nil {
				return err
			}
			// At CUBIC's rate on this path 50 MB takes minutes: a minute
			// is enough to measure it.
			if err := helper(lab, "client", &big, "fetch", "-max-time", "60s", "-url", base+"/download?bytes=52428800"); err != nil {
				return err
			}
			if err := helper(lab, "client", &burst, "fetch", "-n", "100", "-url", base+"/api/products?page=%d"); err != nil {
				return err
			}
			if first.Errors+big.Errors+burst.Errors > 0 {
				return fmt.Errorf("%s via %s: %d, %d, %d failed requests", originCC, v.name, first.Errors, big.Errors, burst.Errors)
			}
			slices.Sort(burst.TTFBMs)
			fmt.Printf("origin %-5s %-13s first TTFB %6.0f ms, 50 MB at %6.1f Mbit/s, burst %6.0f ms\n", originCC, v.name, first.TTFBMs[0], big.Mbit, burst.TotalMs)
			mbit := fmt.Sprintf("%.1f", big.Mbit)
			if big.Partial > 0 {
				mbit += fmt.Sprintf(" (%.0f MB in 60 s)", float64(big.Bytes)/1e6)
			}
			fmt.Fprintf(&b, "| %s | %s | %.0f | %s | %.0f | %.0f | %.0f |\n", originCC, v.name, first.TTFBMs[0], mbit, burst.TotalMs,
				percentile(burst.TTFBMs, 50), percentile(burst.TTFBMs, 95))
			names = append(names, originCC+" origin, "+strings.TrimSuffix(v.name, " http"))
			mbits = append(mbits, big.Mbit)
		}
	}
	b.WriteString("\n![50 MB transfer](origin-link.svg)\n")
	return r.writeResult("origin-link", "Origin links on a long fat lossy path: origin_link vs Caddy's default transport",
		b.String(),
		map[string]string{"origin-link.svg": barSVG("50 MB from origin over 100 ms, 1.5% loss", "Mbit/s", names, mbits)})
}
