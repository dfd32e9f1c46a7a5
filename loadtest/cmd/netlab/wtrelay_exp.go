//go:build linux

package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/testcert"
	"github.com/lastmile-edge/lastmile/internal/wtclient"
	"github.com/lastmile-edge/lastmile/internal/wtorigin"
	"github.com/lastmile-edge/lastmile/loadtest/netlab"
)

// ---- WebTransport relay: `session proxy` throughput vs straight to the origin ----

// wtRelayMaxTime bounds one transfer, its session's handshake included.
const wtRelayMaxTime = 60 * time.Second

// wtOriginPort is the WebTransport origin's UDP port, on each of its links.
const wtOriginPort = "4433"

// relaySite is the WebTransport relay's topology, both paths in one lab
// so that their transfers alternate within a run:
//
//	client --[last mile]-- edge --[backbone]-- origin   (viaEdge)
//	client --[last mile + backbone in series]-- origin  (direct)
type relaySite struct {
	lab             *netlab.Lab
	direct, viaEdge string // https://host[:port] the client dials
}

// relay starts the relay topology: a WebTransport origin (wtorigin's
// Discard and Source) listening on both of its links, and the edge whose
// `session proxy` relays to it across the backbone. The edge's QUIC
// controller toward the client is quicCC.
func (r *runner) relay(lastMile, backbone netlab.Profile, quicCC string) (*relaySite, error) {
	lab, user, back, err := r.edgeLab(lastMile, backbone)
	if err != nil {
		return nil, err
	}
	direct, err := lab.Connect("client", "origin", lastMile.Impairment(), backbone.Impairment())
	if err != nil {
		return nil, err
	}
	dir, err := lab.MkdirTemp("netlab-wt-origin")
	if err != nil {
		return nil, err
	}
	cert, err := testcert.WriteDir(dir)
	if err != nil {
		return nil, err
	}
	if _, err := lab.Start("origin", nil, self(), "wt-origin", "-addr", ":"+wtOriginPort, "-cert", cert.CertFile, "-key", cert.KeyFile); err != nil {
		return nil, err
	}
	proxy := fmt.Sprintf("\twebtransport /* {\n\t\tsession proxy https://%s:%s {\n\t\t\ttls_trusted_ca_certs %s\n\t\t\ttls_server_name localhost\n\t\t}\n\t}\n",
		back.AddrB, wtOriginPort, cert.CertFile)
	// clientCC: the client_tcp wrapper needs one; nothing here is TCP.
	if err := r.startEdge(lab, user, edgeOptions{clientCC: "cubic", quicCC: quicCC}, proxy); err != nil {
		return nil, err
	}
	return &relaySite{lab: lab, direct: "https://" + direct.AddrB + ":" + wtOriginPort, viaEdge: "https://" + user.AddrB}, nil
}

// wtTransferResult is one wt-transfer.
type wtTransferResult struct {
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"` // the stream's, from its opening to its last byte
}

func (t wtTransferResult) mbytesPerSec() float64 { return float64(t.Bytes) / t.Seconds / 1e6 }

// transfer runs one upload (to /discard) or download (from /source) of
// bytes from the client namespace to base.
func (s *relaySite) transfer(base, direction string, bytes int64) (wtTransferResult, error) {
	path := map[string]string{"upload": "/discard", "download": "/source"}[direction]
	var res wtTransferResult
	err := helper(s.lab, "client", &res, "wt-transfer", "-url", base+path, "-"+direction, fmt.Sprint(bytes), "-max-time", wtRelayMaxTime.String())
	return res, err
}

func (r *runner) wtRelay() error {
	wifi, err := r.profiles.Get("wifi-last-meters")
	if err != nil {
		return err
	}
	wifiClean := wifi
	wifiClean.Loss, wifiClean.Source = 0, "wifi-last-meters without its loss"
	fastRate := 200.0
	fastClean := wifiClean
	fastClean.RateMbit, fastClean.Source = &fastRate, "wifi-last-meters without its loss, at 200 Mbit/s"
	var b strings.Builder
	fmt.Fprintf(&b, "The relay's cost where neither path is CPU-bound: the last mile's 50 Mbit/s (6.25 MB/s) is a twentieth, and 200 Mbit/s (25 MB/s) a fifth, of what the edge relays on one core (100-150 MB/s, [wtproxy.md](wtproxy.md)), and the lab's emulator carries about 2,000 Mbit/s ([selftest.md](selftest.md)).\n\n"+
		"One lab, both paths beside each other: `direct` is client --[last mile + backbone in series]-- origin; `via edge` is client --[last mile]-- edge --[backbone]-- origin, the edge's `session proxy` relaying (its upstream connection pooled, so only the first session's handshake crosses the backbone). The backbone is clean (no delay, no loss), so the paths differ by the relay alone; the origin is a webtransport-go server (wtorigin's Discard and Source). "+
		"Each transfer is the table's MiB on a new bidirectional stream of a new session on a new connection (a new wt-transfer process), timed from the stream's opening to its last byte (an upload: until the origin has counted it all). Direct and via edge alternate, their order swapped each round. "+
		"The edge's QUIC controller toward the client is quic-go's own (`congestion_control reno`), what the origin and the client also run, so the lossy last mile sees the same sender on both paths (lastmile's default BBR would make this a congestion-control comparison, which [quic-transfer.md](quic-transfer.md) is). MB/s is 10^6 bytes per second.\n\n")
	b.WriteString("| last mile | direction | MiB | direct MB/s (median) | via edge MB/s (median) | via edge / direct | transfers each | per-round ratios |\n|---|---|---|---|---|---|---|---|\n")
	for _, lm := range []struct {
		name   string
		p      netlab.Profile
		rounds int
		bytes  int64
	}{
		// Clean: the rate limit alone, 8 MiB in about 1.5 s; at 200 Mbit/s
		// (25 MB/s, a fifth of the edge's core), 32 MiB in about the same.
		// Lossy: the profile of the split-loop and quic-mobile experiments,
		// where quic-go's NewReno gets under 1 MB/s: fewer rounds keep the
		// run within a few minutes.
		{"wifi-last-meters without loss", wifiClean, 5, 8 << 20},
		{"the same at 200 Mbit/s", fastClean, 5, 32 << 20},
		{"wifi-last-meters", wifi, 3, 8 << 20},
	} {
		s, err := r.relay(lm.p, clean, "reno")
		if err != nil {
			return fmt.Errorf("%s: %w", lm.name, err)
		}
		// Warm-up, not counted: the direct one waits out the origin's
		// start (the client's QUIC handshake retransmits until it answers),
		// then the edge's opens its pooled upstream connection.
		for _, base := range []string{s.direct, s.viaEdge} {
			if _, err := s.transfer(base, "upload", 64<<10); err != nil {
				return fmt.Errorf("%s: warm-up: %w", lm.name, err)
			}
		}
		for _, direction := range []string{"upload", "download"} {
			var direct, edge, ratios []float64
			for round := range lm.rounds {
				order := []string{s.direct, s.viaEdge}
				if round%2 == 1 {
					slices.Reverse(order)
				}
				got := map[string]float64{}
				for _, base := range order {
					res, err := s.transfer(base, direction, lm.bytes)
					if err != nil {
						return fmt.Errorf("%s %s round %d: %w", lm.name, direction, round+1, err)
					}
					got[base] = res.mbytesPerSec()
				}
				fmt.Printf("%-30s %-8s round %d: direct %.2f MB/s, via edge %.2f MB/s\n", lm.name, direction, round+1, got[s.direct], got[s.viaEdge])
				direct, edge = append(direct, got[s.direct]), append(edge, got[s.viaEdge])
				ratios = append(ratios, got[s.viaEdge]/got[s.direct])
			}
			rs := make([]string, len(ratios))
			for i, x := range ratios {
				rs[i] = fmt.Sprintf("%.2f", x)
			}
			md, me := percentile(series{Values: direct}.sorted(), 50), percentile(series{Values: edge}.sorted(), 50)
			fmt.Fprintf(&b, "| %s | %s | %d | %.2f | %.2f | **%.2fx** | %d | %s |\n", lm.name, direction, lm.bytes>>20, md, me, me/md, lm.rounds, strings.Join(rs, ", "))
		}
	}
	fmt.Fprintf(&b, "\nThe goal (issue 14): via edge >= 0.8x direct. The ratio column is the ratio of the medians.\n")
	return r.writeResult("wt-relay", "WebTransport relay (`session proxy`) throughput over an emulated last mile", b.String(), nil)
}

// ---- helpers run in the lab's namespaces ----

// wtOrigin serves WebTransport sessions on a UDP address, wtorigin's
// Discard on /discard and Source on /source, until it is killed.
func wtOrigin(args []string) error {
	fs := flag.NewFlagSet("wt-origin", flag.ExitOnError)
	addr := fs.String("addr", ":4433", "UDP address")
	certFile := fs.String("cert", "", "certificate (PEM)")
	keyFile := fs.String("key", "", "its key (PEM)")
	_ = fs.Parse(args)
	cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
	if err != nil {
		return err
	}
	srv, err := wtorigin.Listen(*addr, cert, nil)
	if err != nil {
		return err
	}
	srv.HandleSessions("/discard", func(s *webtransport.Session, _ *http.Request) { wtorigin.Discard(s) })
	srv.HandleSessions("/source", func(s *webtransport.Session, _ *http.Request) { wtorigin.Source(s) })
	srv.Serve()
	select {} // until the lab kills it, as its other servers
}

// wtTransfer opens a WebTransport session to -url on a new connection
// and uploads (to wtorigin.Discard) or downloads (from wtorigin.Source)
// bytes on one stream, timing the stream alone.
func wtTransfer(args []string) error {
	fs := flag.NewFlagSet("wt-transfer", flag.ExitOnError)
	rawURL := fs.String("url", "", "session URL (https://host[:port]/path)")
	upload := fs.Int64("upload", 0, "bytes to send")
	download := fs.Int64("download", 0, "bytes to receive")
	maxTime := fs.Duration("max-time", time.Minute, "for the whole transfer, handshake included")
	_ = fs.Parse(args)
	u, err := url.Parse(*rawURL)
	if err != nil {
		return err
	}
	if (*upload > 0) == (*download > 0) {
		return fmt.Errorf("give one of -upload and -download")
	}
	addr := u.Host
	if u.Port() == "" {
		addr += ":443"
	}
	ctx, cancel := context.WithTimeout(context.Background(), *maxTime)
	defer cancel()
	// The lab's certificates; the handshake may wait out the server's
	// start and the link's loss, within -max-time.
	client, conn, err := wtclient.Connect(ctx, addr, &tls.Config{InsecureSkipVerify: true}, &quic.Config{HandshakeIdleTimeout: *maxTime})
	if err != nil {
		return err
	}
	defer conn.CloseWithError(0, "")
	_, sess, err := client.Dial(ctx, u.String(), nil)
	if err != nil {
		return err
	}
	defer sess.CloseWithError(0, "")
	start := time.Now()
	res := wtTransferResult{Bytes: *upload}
	if *upload > 0 {
		err = wtclient.Upload(ctx, sess, *upload)
	} else {
		res.Bytes = *download
		err = wtclient.Download(ctx, sess, *download)
	}
	if err != nil {
		return err
	}
	res.Seconds = time.Since(start).Seconds()
	return json.NewEncoder(os.Stdout).Encode(res)
}
