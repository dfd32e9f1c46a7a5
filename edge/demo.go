package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	"github.com/lastmile-edge/lastmile"
	"github.com/lastmile-edge/lastmile/internal/demoorigin"
)

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "demo",
		Usage: "[--origin <addr>] [--fleet <n>]",
		Short: "Runs the demo origin and the edge in front of it",
		Long: `
Starts the built-in demo origin (dynamic HTML pages with subresources, a JSON
API, a request header echo, sized downloads) and the lastmile edge in front
of it with the default Caddyfile embedded in the binary: HTTP/1.1 and HTTP/2
on TCP, HTTP/3 and WebTransport on the same UDP port. The Caddyfile's
{$LASTMILE_*} variables change ports, site name and certificate.

With --fleet N it starts instead an embedded NATS server (JetStream), the
demo origin and N edges on spare loopback ports, joined by the fleet app,
and prints how to purge on one edge and see every edge apply it.`,
		Flags: func() *flag.FlagSet {
			fs := flag.NewFlagSet("demo", flag.ExitOnError)
			fs.String("origin", "127.0.0.1:8081", "Address for the demo origin")
			fs.Int("fleet", 0, "Run this many edges sharing purges over an embedded NATS server")
			return fs
		}(),
		Func: cmdDemo,
	})
}

func cmdDemo(fl caddycmd.Flags) (int, error) {
	if n := fl.Int("fleet"); n > 0 {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err := fleetDemo(ctx, n, os.Stdout); err != nil {
			return caddy.ExitCodeFailedStartup, err
		}
		return caddy.ExitCodeSuccess, nil
	}
	originAddr := fl.String("origin")
	origin, err := startOrigin(originAddr)
	if err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	defer origin.Close()
	os.Setenv("LASTMILE_ORIGIN", origin.Addr)
	if err := loadCaddyfile(lastmile.DefaultCaddyfile); err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	host := envOr("LASTMILE_SITE", "localhost")
	port := envOr("LASTMILE_HTTPS_PORT", "8443")
	fmt.Printf(`lastmile demo is running:
  origin         http://%s
  edge (h1/h2)   https://%s:%s/   (HTTP/3 is advertised by Alt-Svc on the same port)
  WebTransport   https://%s:%s/webtransport
  metrics        http://%s/metrics
The certificate comes from Caddy's local CA; Ctrl-C stops.
`, origin.Addr, host, port, host, port, envOr("LASTMILE_ADMIN", "localhost:2019"))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	if err := caddy.Stop(); err != nil {
		return caddy.ExitCodeFailedQuit, err
	}
	return caddy.ExitCodeSuccess, nil
}

// originServer is the demo origin listening on Addr.
type originServer struct {
	*demoorigin.Handler
	Addr string
	srv  *http.Server
}

func startOrigin(addr string) (*originServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("demo origin: %w", err)
	}
	h := demoorigin.New()
	// HTTP/1.1 and cleartext HTTP/2: the edge's origin_link transport
	// multiplexes requests over a few warm h2c connections.
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, Protocols: new(http.Protocols)}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "demo origin:", err)
		}
	}()
	return &originServer{Handler: h, Addr: ln.Addr().String(), srv: srv}, nil
}

func (o *originServer) Close() error { return o.srv.Close() }

// loadCaddyfile adapts a Caddyfile and runs it as the process's config,
// exactly as `lastmile run --config` would.
func loadCaddyfile(body []byte) error {
	adapter := caddyconfig.GetAdapter("caddyfile")
	cfg, warnings, err := adapter.Adapt(body, map[string]any{"filename": "Caddyfile"})
	if err != nil {
		return fmt.Errorf("adapting Caddyfile: %w", err)
	}
	for _, w := range warnings {
		fmt.Fprintln(os.Stderr, "Caddyfile:", w.String())
	}
	return caddy.Load(cfg, true)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
