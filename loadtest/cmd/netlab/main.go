//go:build linux

// Command netlab runs lastmile's network lab: namespaces joined by
// emulated links (package netlab), the real lastmile edge and a real
// origin inside them, and the experiments that reproduce in emulated lossy
// networks the field results lastmile's design rests on.
//
//	go run ./loadtest/cmd/netlab selftest      # the emulator measured against its profiles
//	go run ./loadtest/cmd/netlab split-loop    # experiment 1: direct vs via-edge
//	go run ./loadtest/cmd/netlab quic-mobile   # experiment 2: HTTP/3 vs HTTP/2 on lossy mobile
//	go run ./loadtest/cmd/netlab quic-mobile -only lte-india -variants h2-kept,h3-bbr-kept  # some variants only
//	go run ./loadtest/cmd/netlab quic-transfer -only fairness  # some parts only
//	go run ./loadtest/cmd/netlab cc            # experiment 3: CUBIC vs BBR on a long fat lossy link
//	go run ./loadtest/cmd/netlab origin-link   # origin_link vs Caddy's default transport on that link
//	go run ./loadtest/cmd/netlab wt-relay      # WebTransport through the edge's session proxy vs direct
//	go run ./loadtest/cmd/netlab smoke         # the short version CI runs
//	go run ./loadtest/cmd/netlab qlog-pages [-rate-mbit R] <edge trace.sqlog>  # per page: window, controller state and model, wire bytes
//
// It needs root and iproute2; without them it says so and exits (smoke
// exits 0, saying why it was skipped). Everything it creates is torn down
// on exit, on failure and on Ctrl-C.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/lastmile-edge/lastmile/loadtest/netlab"
)

func main() {
	if len(os.Args) > 1 {
		if h, ok := helpers[os.Args[1]]; ok {
			if err := h(os.Args[2:]); err != nil {
				fmt.Fprintln(os.Stderr, "netlab", os.Args[1]+":", err)
				os.Exit(1)
			}
			return
		}
	}
	fs := flag.NewFlagSet("netlab", flag.ExitOnError)
	out := fs.String("out", "docs/results", "where results are written")
	runs := fs.Int("runs", 30, "page loads per variant")
	profilesPath := fs.String("profiles", "", "profiles file (default: the embedded loadtest/netlab/profiles.json)")
	lastmileBin := fs.String("lastmile", "", "the lastmile binary to run as is (default: ./edge built into loadtest/bin/lastmile)")
	seconds := fs.Int("seconds", 20, "length of each transfer in the cc and quic-transfer experiments")
	only := fs.String("only", "", "quic-mobile: comma-separated profiles (default: the lossy mobile set); quic-transfer: comma-separated parts of long-fat-lossy,throttled-lossy,fairness (default: all)")
	variantsFlag := fs.String("variants", "", "quic-mobile: comma-separated variants of "+strings.Join(flagNames(quicMobileVariants()), ",")+" (default: all; an edge runs only for the controllers named; kept HTTP/3 without its cold variant starts without the path memory cold connections leave)")
	qlog := fs.String("qlog", "", "write qlog files of the edge's and the client's QUIC connections here (<odcid>_server|client.sqlog; quic-mobile keeps its edges' in <profile>-<cc>/)")
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: netlab selftest|split-loop|quic-mobile|quic-transfer|cc|origin-link|wt-relay|smoke [flags]")
		os.Exit(2)
	}
	cmd := os.Args[1]
	_ = fs.Parse(os.Args[2:])
	variants, err := parseQuicMobileVariants(*variantsFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "netlab:", err)
		os.Exit(2)
	}
	var qlogAbs string
	if *qlog != "" {
		// The edge and the pageload helper read QLOGDIR.
		dir, err := filepath.Abs(*qlog)
		if err == nil {
			err = os.Setenv("QLOGDIR", dir)
		}
		qlogAbs = dir
		if err != nil {
			fmt.Fprintln(os.Stderr, "netlab:", err)
			os.Exit(2)
		}
	}
	if err := netlab.Requirements(); err != nil {
		if cmd == "smoke" {
			fmt.Println("netlab smoke skipped:", err)
			return
		}
		fmt.Fprintln(os.Stderr, "netlab:", err)
		os.Exit(2)
	}
	profiles, err := netlab.LoadProfiles(*profilesPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "netlab:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := &runner{ctx: ctx, out: *out, runs: *runs, profiles: profiles, edge: edgeBinary{path: *lastmileBin}, seconds: *seconds, only: *only, variants: variants, qlog: qlogAbs}
	exps := map[string]func() error{
		"selftest": r.selftest, "split-loop": r.splitLoop, "quic-mobile": r.quicMobile, "cc": r.congestionControl, "smoke": r.smoke,
		"origin-link": r.originLink, "quic-transfer": r.quicTransfer,
		"wt-relay": r.wtRelay,
	}
	run, ok := exps[cmd]
	if !ok {
		fmt.Fprintf(os.Stderr, "netlab: unknown command %q\n", cmd)
		os.Exit(2)
	}
	err = run()
	r.closeLab()
	if left, lerr := netlab.Leftovers(os.Getpid()); lerr == nil && len(left) > 0 {
		err = errors.Join(err, fmt.Errorf("left behind: %v", left))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "netlab:", err)
		os.Exit(1)
	}
}
