package anycast

import (
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
)

// The health check and drain as commands of the binary, for what runs
// beside the edge without curl (the container image is FROM scratch):
// bird2/ExaBGP health loops, systemd's ExecStop, Kubernetes' preStop.
func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "health",
		Usage: "[--ready] [--admin <addr>]",
		Short: "Exits 0 if the running edge is alive (--ready: ready to be announced)",
		Long: `
Asks the running edge's admin API for GET /lastmile/health (liveness) or, with
--ready, GET /lastmile/ready (readiness: not draining, origins reachable,
cache store working). Exit status 0: yes; 1: no (the reasons are printed);
2: no answer. A BGP daemon's health check (bird2, ExaBGP) can call it.`,
		Flags: func() *flag.FlagSet {
			fs := flag.NewFlagSet("health", flag.ExitOnError)
			fs.Bool("ready", false, "Check readiness instead of liveness")
			fs.String("admin", "127.0.0.1:2019", "The edge's admin API address")
			fs.Duration("timeout", 2*time.Second, "How long to wait for an answer")
			return fs
		}(),
		Func: func(fl caddycmd.Flags) (int, error) {
			path := "/lastmile/health"
			if fl.Bool("ready") {
				path = "/lastmile/ready"
			}
			return callAdmin(http.MethodGet, fl.String("admin"), path, fl.Duration("timeout"))
		},
	})
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "drain",
		Usage: "[--admin <addr>] [--undo]",
		Short: "Withdraws the anycast route and waits until the edge is drained",
		Long: `
POSTs /lastmile/drain?wait=1: the edge becomes unready, withdraws its anycast
prefixes at once, waits drain_wait for traffic to move and up to drain_timeout
for WebTransport sessions to end, then this command returns. Stopping the
process (SIGTERM, 'lastmile stop') then finishes in-flight requests. --undo
ends a drain (POST /lastmile/undrain); the route returns after hold_down.`,
		Flags: func() *flag.FlagSet {
			fs := flag.NewFlagSet("drain", flag.ExitOnError)
			fs.String("admin", "127.0.0.1:2019", "The edge's admin API address")
			fs.Bool("undo", false, "End the drain instead")
			fs.Duration("timeout", 3*time.Minute, "How long to wait for the drain")
			return fs
		}(),
		Func: func(fl caddycmd.Flags) (int, error) {
			path := "/lastmile/drain?wait=1"
			if fl.Bool("undo") {
				path = "/lastmile/undrain"
			}
			code, err := callAdmin(http.MethodPost, fl.String("admin"), path, fl.Duration("timeout"))
			if code == 1 && err == nil {
				code = 0 // draining is unready by design
			}
			return code, err
		},
	})
}

// callAdmin returns 0 for a 200, 1 for another answer, 2 for none.
func callAdmin(method, admin, path string, timeout time.Duration) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, "http://"+admin+path, nil)
	if err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 2, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(os.Stdout, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode == http.StatusServiceUnavailable {
		return 1, nil
	}
	if resp.StatusCode != http.StatusOK {
		return 1, errors.New(resp.Status)
	}
	return 0, nil
}
