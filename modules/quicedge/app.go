// Package quicedge is the Caddy app that serves HTTP/3 and WebTransport on
// the UDP port of every HTTPS listener of Caddy's http servers.
//
// Stock Caddy owns its QUIC listener with a fixed quic.Config (no datagrams,
// no partial-delivery resets) and an unexported http3.Server whose accept
// loop cannot hand WebTransport streams to a session, so lastmile runs the
// UDP side itself: one pooled socket and quic.Transport per address, an
// http3.Server whose handler is the named Caddy server, and a
// webtransport.Server for the streams of its sessions. The Caddy servers
// themselves run "protocols h1 h2".
package quicedge

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/quic-go/quic-go"
	"go.uber.org/zap"

	"github.com/lastmile-edge/lastmile/internal/congestion/pathmemory"
	"github.com/lastmile-edge/lastmile/internal/qlogdir"
)

func init() {
	caddy.RegisterModule(App{})
}

// App serves HTTP/3 and WebTransport for Caddy's HTTPS servers.
//
// Each default below is set in Provision with its reason.
type App struct {
	// Servers names the http app servers to serve over QUIC. Default: every
	// server that has TLS connection policies (the HTTPS ones).
	Servers []string `json:"servers,omitempty"`

	// IdleTimeout is how long a connection may stay silent (no packet at
	// all) before it is considered dead. Default 30s.
	IdleTimeout caddy.Duration `json:"idle_timeout,omitempty"`

	// KeepAlivePeriod is how often an otherwise quiet connection sends a
	// PING so NAT mappings stay open. Default 10s. Set to -1 (Caddyfile:
	// off) to disable.
	KeepAlivePeriod caddy.Duration `json:"keep_alive,omitempty"`

	// ConnIdleTimeout closes a connection that has no request and no
	// WebTransport session open for this long. Default 2m.
	ConnIdleTimeout caddy.Duration `json:"conn_idle_timeout,omitempty"`

	// MaxIncomingStreams is the number of concurrent bidirectional streams
	// (requests) a client may open, 1 to 1048576. Default 100.
	MaxIncomingStreams int64 `json:"max_incoming_streams,omitempty"`

	// InitialPacketSize is the size of the first packets, before path MTU
	// discovery raises it; at least 1200 (RFC 9000's minimum). Default 1280.
	InitialPacketSize uint16 `json:"initial_packet_size,omitempty"`

	// DisablePathMTUDiscovery keeps packets at InitialPacketSize.
	DisablePathMTUDiscovery bool `json:"disable_path_mtu_discovery,omitempty"`

	// Datagrams enables QUIC DATAGRAM frames. Default true; WebTransport
	// needs them, so turning them off turns WebTransport off.
	Datagrams *bool `json:"datagrams,omitempty"`

	// ZeroRTT lets resuming clients send requests in their first flight.
	// Default true: unsafe methods in early data get 425 (see
	// AllowEarlyData), so only replay-safe requests run before the
	// handshake is confirmed.
	ZeroRTT *bool `json:"zero_rtt,omitempty"`

	// AllowEarlyData lists requests that may run in 0-RTT even though their
	// method is not safe (RFC 8470 section 3): routes whose handlers are
	// replay-safe, such as idempotent POST APIs.
	AllowEarlyData caddyhttp.RawMatcherSets `json:"allow_early_data,omitempty" caddy:"namespace=http.matchers"`

	// GracePeriod is how long a stopping server waits for in-flight
	// requests before it closes its connections. Default 10s.
	GracePeriod caddy.Duration `json:"grace_period,omitempty"`

	// CongestionControl is the congestion controller of new connections:
	// "bbr" (lastmile's), "cubic" or "reno" (quic-go's own). Default bbr
	// when the build has it, else reno, quic-go's default (congestion.go).
	CongestionControl string `json:"congestion_control,omitempty"`

	// CarefulResume starts a new connection from the window and RTT the
	// client's previous connection ended with (RFC 9959; resume.go).
	// Default true with congestion_control bbr, which it needs.
	CarefulResume *bool `json:"careful_resume,omitempty"`

	// QlogDir turns on qlog tracing: one file per connection in this
	// directory, up to QlogMaxSize in all (qlog.go). Default: the QLOGDIR
	// environment variable, as in quic-go; off if unset.
	QlogDir string `json:"qlog_dir,omitempty"`

	// QlogMaxSize bounds the bytes of qlog this app writes. Default 1 GiB.
	QlogMaxSize int64 `json:"qlog_max_size,omitempty"`

	// WebTransportMaxSessions bounds the WebTransport sessions one QUIC
	// connection carries at once, 1 to 1024 (sessions.go). Default 16.
	WebTransportMaxSessions int `json:"webtransport_max_sessions_per_connection,omitempty"`

	// WebTransportSessionStreams is how many bidirectional, and how many
	// unidirectional, streams a client may have open in one WebTransport
	// session, 1 to max_incoming_streams. Default max_incoming_streams.
	WebTransportSessionStreams int64 `json:"webtransport_session_max_streams,omitempty"`

	// WebTransportSessionData is how many bytes a client may send on one
	// session's streams ahead of the session's reading, 1 to 1 GiB.
	// Default 4 MiB.
	WebTransportSessionData int64 `json:"webtransport_session_max_data,omitempty"`

	allowEarly caddyhttp.MatcherSets
	paths      *pathmemory.Memory // nil: careful_resume off
	qlog       *qlogdir.Dir
	bindings   []*binding
	logger     *zap.Logger
	ctx        caddy.Context
}

// CaddyModule returns the Caddy module information.
func (App) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "quic",
		New: func() caddy.Module { return new(App) },
	}
}

// Provision sets defaults, finds the servers to serve and prepares one
// binding per UDP address.
func (a *App) Provision(ctx caddy.Context) error {
	a.ctx = ctx
	a.logger = ctx.Logger()
	if a.IdleTimeout == 0 {
		// quic-go's default; long enough for a radio to wake up, short
		// enough that a vanished client's state is freed soon.
		a.IdleTimeout = caddy.Duration(30 * time.Second)
	}
	if a.KeepAlivePeriod == 0 {
		// Mobile carriers' NATs drop idle UDP mappings after 15-30 s; a PING
		// every 10 s keeps the path (and connection migration) alive for
		// the cost of one small packet.
		a.KeepAlivePeriod = caddy.Duration(10 * time.Second)
	}
	if a.ConnIdleTimeout == 0 {
		// Keep-alives keep a connection alive forever; this bounds how long
		// an unused one holds server state, while outliving the gap
		// between page views.
		a.ConnIdleTimeout = caddy.Duration(2 * time.Minute)
	}
	if a.MaxIncomingStreams == 0 {
		// Browsers rarely run more than 100 requests at once on one
		// connection; the bound caps per-connection memory.
		a.MaxIncomingStreams = 100
	}
	if a.InitialPacketSize == 0 {
		// The IPv6 minimum MTU: passes tunnels and VPNs of the last mile;
		// path MTU discovery raises it where the path allows.
		a.InitialPacketSize = 1280
	}
	if a.GracePeriod == 0 {
		a.GracePeriod = caddy.Duration(10 * time.Second)
	}
	if a.CongestionControl == "" {
		a.CongestionControl = defaultController()
	}
	a.provisionResume()
	a.provisionSessionLimits()
	if err := a.provisionQlog(); err != nil {
		return err
	}
	if a.AllowEarlyData != nil {
		mods, err := ctx.LoadModule(a, "AllowEarlyData")
		if err != nil {
			return fmt.Errorf("loading allow_early_data matchers: %w", err)
		}
		if err := a.allowEarly.FromInterface(mods); err != nil {
			return err
		}
	}
	if err := registerMetrics(ctx.GetMetricsRegistry()); err != nil {
		return err
	}

	httpAppIface, err := ctx.App("http")
	if err != nil {
		return fmt.Errorf("getting http app: %w", err)
	}
	httpApp := httpAppIface.(*caddyhttp.App)
	return a.bind(httpApp)
}

// bind prepares one binding per UDP address of each served server.
func (a *App) bind(httpApp *caddyhttp.App) error {
	httpPort := httpApp.HTTPPort
	if httpPort == 0 {
		httpPort = caddyhttp.DefaultHTTPPort
	}
	for _, name := range a.Servers {
		if _, ok := httpApp.Servers[name]; !ok {
			return fmt.Errorf("server %q is not in the http app", name)
		}
	}
	names := make([]string, 0, len(httpApp.Servers))
	for name := range httpApp.Servers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		srv := httpApp.Servers[name]
		if len(a.Servers) > 0 && !slices.Contains(a.Servers, name) {
			continue
		}
		if len(a.Servers) == 0 && len(srv.TLSConnPolicies) == 0 {
			continue
		}
		if len(srv.TLSConnPolicies) == 0 {
			return fmt.Errorf("server %q has no TLS: HTTP/3 needs it", name)
		}
		if len(srv.Protocols) == 0 || slices.Contains(srv.Protocols, "h3") {
			return fmt.Errorf("server %q also enables h3 in Caddy itself, which would bind the same UDP port: "+
				"the quic app serves HTTP/3 for it, so set `protocols h1 h2` in its server options", name)
		}
		for _, lnAddr := range srv.Listen {
			na, err := caddy.ParseNetworkAddress(lnAddr)
			if err != nil {
				return fmt.Errorf("server %q: parsing listen address %q: %w", name, lnAddr, err)
			}
			if na.Network != "tcp" && na.Network != "tcp4" && na.Network != "tcp6" {
				continue
			}
			for offset := range na.PortRangeSize() {
				port := na.StartPort + offset
				if int(port) == httpPort {
					continue
				}
				network := "udp" + na.Network[len("tcp"):]
				addr := network + "/" + na.JoinHostPort(offset)
				a.bindings = append(a.bindings, newBinding(a, name, srv, network, na.JoinHostPort(offset), strconv.Itoa(int(port))))
				a.logger.Debug("serving HTTP/3", zap.String("server", name), zap.String("address", addr))
			}
		}
	}
	if len(a.bindings) == 0 {
		a.logger.Warn("no HTTPS server to serve over QUIC")
	}
	return nil
}

// maxIncomingStreams bounds MaxIncomingStreams: quic-go takes up to 2^60,
// but each open stream holds buffers, so one client could claim gigabytes.
const maxIncomingStreams = 1 << 20

// Validate checks the settings once Provision has set the defaults, so a
// JSON config (or one posted to the admin API) gets the checks a Caddyfile
// gets: quic-go would otherwise take a negative stream limit as 0 streams
// and turn HTTP/3 off without a word.
func (a *App) Validate() error {
	switch {
	case a.IdleTimeout <= 0:
		return fmt.Errorf("quic: idle_timeout %s: want a positive duration", time.Duration(a.IdleTimeout))
	case a.KeepAlivePeriod <= 0 && a.KeepAlivePeriod != -1:
		return fmt.Errorf("quic: keep_alive %s: want a positive duration, or -1 (off)", time.Duration(a.KeepAlivePeriod))
	case a.ConnIdleTimeout <= 0:
		return fmt.Errorf("quic: conn_idle_timeout %s: want a positive duration", time.Duration(a.ConnIdleTimeout))
	case a.GracePeriod <= 0:
		return fmt.Errorf("quic: grace_period %s: want a positive duration", time.Duration(a.GracePeriod))
	case a.MaxIncomingStreams < 1 || a.MaxIncomingStreams > maxIncomingStreams:
		return fmt.Errorf("quic: max_incoming_streams %d: want 1 to %d", a.MaxIncomingStreams, maxIncomingStreams)
	case a.InitialPacketSize < 1200:
		return fmt.Errorf("quic: initial_packet_size %d: want 1200 to 65535", a.InitialPacketSize)
	case a.QlogMaxSize < 0:
		return fmt.Errorf("quic: qlog_max_size %d: must be positive", a.QlogMaxSize)
	}
	if err := a.checkSessionLimits(); err != nil {
		return err
	}
	if err := a.checkCongestionControl(); err != nil {
		return err
	}
	return a.checkResume()
}

func (a *App) quicConfig() *quic.Config {
	keepAlive := time.Duration(a.KeepAlivePeriod)
	if keepAlive < 0 {
		keepAlive = 0
	}
	return &quic.Config{
		MaxIdleTimeout:          time.Duration(a.IdleTimeout),
		KeepAlivePeriod:         keepAlive,
		MaxIncomingStreams:      a.MaxIncomingStreams,
		MaxIncomingUniStreams:   a.MaxIncomingStreams,
		InitialPacketSize:       a.InitialPacketSize,
		DisablePathMTUDiscovery: a.DisablePathMTUDiscovery,
		Allow0RTT:               a.ZeroRTT == nil || *a.ZeroRTT,
		EnableDatagrams:         a.datagrams(),
		// webtransport-go refuses connections without it.
		EnableStreamResetPartialDelivery: true,
		Tracer:                           a.qlogTracer(),
	}
}

func (a *App) datagrams() bool { return a.Datagrams == nil || *a.Datagrams }

// Start binds the UDP sockets (or takes over the ones the previous config
// bound) and makes this config serve every new connection on them.
func (a *App) Start() error {
	for i, b := range a.bindings {
		if err := b.start(); err != nil {
			for _, started := range a.bindings[:i] {
				started.stop(0)
			}
			return err
		}
	}
	return nil
}

// Stop hands the sockets back to the pool. Connections of a config that was
// replaced by a reload keep running and send their new requests to the new
// config; a socket no config uses any more is closed after GracePeriod.
func (a *App) Stop() error {
	var errs []error
	for _, b := range a.bindings {
		if err := b.stop(time.Duration(a.GracePeriod)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ErrNoWebTransport is returned by UpgradeWebTransport and ReserveSession
// for requests that are not a CONNECT that arrived over this app's HTTP/3.
var ErrNoWebTransport = errors.New("quicedge: request is not a CONNECT over lastmile's HTTP/3")

// Interface guards
var (
	_ caddy.App         = (*App)(nil)
	_ caddy.Provisioner = (*App)(nil)
	_ caddy.Validator   = (*App)(nil)
)

// contextKey is the type of this package's request context keys.
type contextKey struct{ name string }

var h3RequestKey = &contextKey{"h3-request"}

// earlyDataAllowed reports whether r may run in 0-RTT although its method is
// not safe.
func (a *App) earlyDataAllowed(r *http.Request) bool {
	// Empty matcher sets match everything in Caddy; here they allow nothing.
	return len(a.allowEarly) > 0 && a.allowEarly.AnyMatch(r)
}
