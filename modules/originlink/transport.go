// Package originlink is a reverse_proxy transport for the long, clean part
// of the path: warm pools of HTTP/2 connections per origin, dialled at
// start, kept alive with PINGs, replaced before the origin's idle timeout
// and redialled with backoff, on sockets tuned for the path (congestion
// control, buffers sized to its bandwidth-delay product,
// TCP_NOTSENT_LOWAT, keep-alive probes, no Nagle), with their TCP_INFO
// exported as metrics and on the admin API.
package originlink

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyevents"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
	"github.com/quic-go/quic-go/http3"
	"go.uber.org/zap"
	"golang.org/x/net/http2"

	"github.com/lastmile-edge/lastmile/internal/tcptune"
)

func init() {
	caddy.RegisterModule(Transport{})
}

// Transport is the origin_link reverse_proxy transport.
type Transport struct {
	// Protocol to the origin (JSON origin_protocol, since reverse_proxy
	// names the transport module with "protocol"): "h2" (HTTP/2 over TLS,
	// the default when TLS is set), "h2c" (HTTP/2 over cleartext TCP, the
	// default without TLS), "h3" (HTTP/3 over QUIC, TLS required; QUIC
	// keep-alives and its own RTT estimate replace PINGs and TCP_INFO) or
	// "h1" (HTTP/1.1 keep-alive, for origins that speak nothing else). An
	// h2 origin that negotiates HTTP/1.1 is served over h1.
	Protocol string `json:"origin_protocol,omitempty"`

	// TLS to the origin; session tickets are cached, so redials resume.
	TLS *reverseproxy.TLSConfig `json:"tls,omitempty"`

	// Warm lists origin addresses (host:port) whose pools are dialled as
	// soon as the config has started (never by `caddy validate`). Others
	// get a pool on first use.
	Warm []string `json:"warm,omitempty"`

	// PoolSize is the connections kept per origin. Default 4: enough
	// streams for a busy edge (100+ each), several congestion windows,
	// and a spare while one is replaced.
	PoolSize int `json:"pool_size,omitempty"`

	// CongestionControl by name. Default bbr where the kernel has it (it
	// keeps its rate through random loss, where CUBIC collapses), else
	// the system default with a warning.
	CongestionControl string `json:"congestion_control,omitempty"`

	// PathBandwidth (bits/s) and PathRTT size socket buffers and HTTP/2
	// windows to the bandwidth-delay product. Unset, the kernel
	// autotunes buffers and windows are 16 MiB per connection.
	PathBandwidth int64          `json:"path_bandwidth,omitempty"`
	PathRTT       caddy.Duration `json:"path_rtt,omitempty"`

	// NotsentLowat is TCP_NOTSENT_LOWAT. Default 128 KiB: enough queued
	// to keep a fast path busy, little enough that HTTP/2 can still
	// reprioritise what it has not handed to the kernel.
	NotsentLowat int `json:"notsent_lowat,omitempty"`

	// KeepAlive is the idle time before TCP keep-alive probes. Default
	// 15s, so a dead path is noticed between PINGs too.
	KeepAlive caddy.Duration `json:"keep_alive,omitempty"`

	// PingInterval is how often every link is PINGed. Default 10s.
	PingInterval caddy.Duration `json:"ping_interval,omitempty"`

	// ReplaceIdle replaces a link idle this long. Default 50s, under the
	// 60-75 s idle timeouts of common origin servers.
	ReplaceIdle caddy.Duration `json:"replace_idle,omitempty"`

	// DialTimeout bounds a dial and TLS handshake. Default 3s: a dead
	// origin fails requests fast.
	DialTimeout caddy.Duration `json:"dial_timeout,omitempty"`

	tuning    socketTuning
	tlsConfig *tls.Config
	h2        *http2.Transport
	h3        *http3.Transport
	h1        *http.Transport
	logger    *zap.Logger

	pools *poolSet
}

// poolSet is a transport's pools by origin address.
type poolSet struct {
	mu    sync.Mutex
	pools map[string]*pool
}

// CaddyModule returns the Caddy module information.
func (Transport) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.reverse_proxy.transport.origin_link",
		New: func() caddy.Module { return new(Transport) },
	}
}

// Provision sets defaults, builds the transports and arranges for the warm
// pools to be dialled once the config has started.
func (t *Transport) Provision(ctx caddy.Context) error {
	t.logger = ctx.Logger()
	t.pools = &poolSet{pools: make(map[string]*pool)}
	if t.PoolSize == 0 {
		t.PoolSize = 4
	}
	if t.NotsentLowat == 0 {
		t.NotsentLowat = 128 << 10
	}
	if t.KeepAlive == 0 {
		t.KeepAlive = caddy.Duration(15 * time.Second)
	}
	if t.PingInterval == 0 {
		t.PingInterval = caddy.Duration(10 * time.Second)
	}
	if t.ReplaceIdle == 0 {
		t.ReplaceIdle = caddy.Duration(50 * time.Second)
	}
	if t.DialTimeout == 0 {
		t.DialTimeout = caddy.Duration(3 * time.Second)
	}
	if err := t.chooseCongestion(); err != nil {
		return err
	}
	t.tuning = socketTuning{
		Options:   tcptune.Options{Congestion: t.CongestionControl, NotsentLowat: t.NotsentLowat},
		keepAlive: net.KeepAliveConfig{Enable: true, Idle: time.Duration(t.KeepAlive), Interval: time.Duration(t.KeepAlive) / 3, Count: 3},
	}
	window := int64(16 << 20)
	if bdp := t.bdp(); bdp > 0 {
		t.tuning.BufferBytes = int(bdp)
		window = max(bdp, 1<<20)
	}
	if t.TLS != nil {
		cfg, err := t.TLS.MakeTLSClientConfig(ctx)
		if err != nil {
			return fmt.Errorf("origin_link TLS: %w", err)
		}
		cfg = cfg.Clone() // our ALPN must not leak into a shared config
		switch t.Protocol {
		case "h1":
			cfg.NextProtos = []string{"http/1.1"}
		case "h3":
			cfg.NextProtos = []string{http3.NextProtoH3}
		default:
			cfg.NextProtos = []string{"h2", "http/1.1"}
		}
		if cfg.ClientSessionCache == nil {
			cfg.ClientSessionCache = tls.NewLRUClientSessionCache(256)
		}
		t.tlsConfig = cfg
	}
	t.h1 = &http.Transport{
		DialContext:         t.tuning.dialer(time.Duration(t.DialTimeout)).DialContext,
		TLSClientConfig:     t.tlsConfig,
		MaxIdleConnsPerHost: t.PoolSize * 8,
		IdleConnTimeout:     time.Duration(t.ReplaceIdle),
		ForceAttemptHTTP2:   false,
		TLSNextProto:        map[string]func(string, *tls.Conn) http.RoundTripper{},
	}
	h2base := &http.Transport{HTTP2: &http.HTTP2Config{
		MaxReceiveBufferPerConnection: int(min(window*2, 1<<30)),
		MaxReceiveBufferPerStream:     int(min(window, 1<<30)),
	}}
	h2, err := http2.ConfigureTransports(h2base)
	if err != nil {
		return err
	}
	h2.AllowHTTP = t.TLS == nil
	t.h2 = h2
	t.h3 = &http3.Transport{}
	registerPoolSet(t)
	if err := registerMetrics(ctx.GetMetricsRegistry()); err != nil {
		return err
	}
	return t.warmOnStart(ctx)
}

// warmOnStart dials the warm pools when Caddy reports the config started:
// a transport has no Start of its own, and Provision also runs for configs
// that are only validated (`caddy validate`, a failed reload), which must
// not touch origins. The events app is the one every http config loads.
func (t *Transport) warmOnStart(ctx caddy.Context) error {
	if t.Protocol == "h1" || len(t.Warm) == 0 {
		return nil
	}
	events, err := ctx.App("events")
	if err != nil {
		return fmt.Errorf("origin_link: getting events app: %w", err)
	}
	return events.(*caddyevents.App).On("started", caddyevents.Handler(warmer{t}))
}

// warmer dials a transport's warm pools, each in its own goroutine: the
// "started" event is delivered synchronously, and a slow origin must not
// hold up the others or the config.
type warmer struct{ t *Transport }

func (w warmer) Handle(context.Context, caddy.Event) error {
	for _, addr := range w.t.Warm {
		go w.t.poolFor("tcp", addr)
	}
	return nil
}

func (t *Transport) bdp() int64 {
	if t.PathBandwidth <= 0 || t.PathRTT <= 0 {
		return 0
	}
	return int64(float64(t.PathBandwidth) / 8 * time.Duration(t.PathRTT).Seconds())
}

func (t *Transport) chooseCongestion() error {
	cc, err := tcptune.ChooseCongestion(t.CongestionControl)
	switch {
	case errors.Is(err, tcptune.ErrNoBBR):
		t.logger.Warn("origin links use the system default congestion control", zap.Error(err))
	case err != nil:
		return fmt.Errorf("origin_link: %w", err)
	}
	t.CongestionControl = cc
	return nil
}

// Validate checks the protocol, sizes and durations once Provision has set
// the defaults, so JSON configs get the checks Caddyfiles get.
func (t *Transport) Validate() error {
	switch t.Protocol {
	case "", "h2", "h2c", "h1", "h3":
	default:
		return fmt.Errorf("origin_link: protocol %q: want h2, h2c, h3 or h1", t.Protocol)
	}
	if (t.Protocol == "h2" || t.Protocol == "h3") && t.TLS == nil {
		return fmt.Errorf("origin_link: protocol %s needs tls", t.Protocol)
	}
	if t.Protocol == "h2c" && t.TLS != nil {
		return errors.New("origin_link: h2c is cleartext; remove tls or use h2")
	}
	if t.PoolSize < 1 || t.PoolSize > 64 {
		return fmt.Errorf("origin_link: pool_size %d: want 1 to 64", t.PoolSize)
	}
	if t.NotsentLowat < 1 || t.NotsentLowat > 1<<30 {
		return fmt.Errorf("origin_link: notsent_lowat %d: want 1 byte to 1 GiB", t.NotsentLowat)
	}
	if t.PathBandwidth < 0 {
		return fmt.Errorf("origin_link: path_bandwidth %d: must not be negative", t.PathBandwidth)
	}
	for _, d := range []struct {
		name string
		d    caddy.Duration
		zero bool // whether unset (0) is allowed
	}{
		{"path_rtt", t.PathRTT, true}, {"keep_alive", t.KeepAlive, false}, {"ping_interval", t.PingInterval, false},
		{"replace_idle", t.ReplaceIdle, false}, {"dial_timeout", t.DialTimeout, false},
	} {
		if d.d < 0 || (d.d == 0 && !d.zero) {
			return fmt.Errorf("origin_link: %s %s: want a positive duration", d.name, time.Duration(d.d))
		}
	}
	for _, addr := range t.Warm {
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return fmt.Errorf("origin_link: warm %q: want host:port", addr)
		}
	}
	return nil
}

// poolFor returns the pool of an origin address, creating (and dialling)
// it on first use, once its first round of dials is over.
func (t *Transport) poolFor(network, addr string) *pool {
	ps := t.pools
	ps.mu.Lock()
	if ps.pools == nil {
		ps.mu.Unlock()
		return nil // cleaned up: the config was replaced
	}
	p, ok := ps.pools[addr]
	if !ok {
		p = newPool(t, network, addr)
		ps.pools[addr] = p
	}
	ps.mu.Unlock()
	if !ok {
		p.start()
	}
	<-p.ready
	return p
}

// RoundTrip sends req to the upstream reverse_proxy chose.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	addr := req.URL.Host
	network := "tcp"
	if di, ok := reverseproxy.GetDialInfo(req.Context()); ok {
		addr, network = di.Address, di.Network
	}
	if t.TLS != nil {
		req.URL.Scheme = "https"
	} else {
		req.URL.Scheme = "http"
	}
	if t.Protocol == "h1" {
		return t.h1.RoundTrip(req)
	}
	p := t.poolFor(network, addr)
	if p == nil {
		return nil, fmt.Errorf("%w %s: the transport was replaced by a reload", ErrNoLink, addr)
	}
	if p.http1.Load() {
		return t.h1.RoundTrip(req)
	}
	return p.roundTrip(req)
}

// TLSEnabled is part of reverseproxy.TLSTransport.
func (t *Transport) TLSEnabled() bool { return t.TLS != nil }

// EnableTLS is part of reverseproxy.TLSTransport: reverse_proxy calls it
// for https:// upstreams.
func (t *Transport) EnableTLS(base *reverseproxy.TLSConfig) error {
	t.TLS = base
	return nil
}

// Cleanup closes the pools; links finish their streams first.
func (t *Transport) Cleanup() error {
	unregisterPoolSet(t)
	ps := t.pools
	ps.mu.Lock()
	pools := ps.pools
	ps.pools = nil
	ps.mu.Unlock()
	for _, p := range pools {
		p.close()
	}
	t.h1.CloseIdleConnections()
	return nil
}

// Interface guards
var (
	_ caddy.Provisioner         = (*Transport)(nil)
	_ caddy.Validator           = (*Transport)(nil)
	_ caddy.CleanerUpper        = (*Transport)(nil)
	_ http.RoundTripper         = (*Transport)(nil)
	_ reverseproxy.TLSTransport = (*Transport)(nil)
	_ caddyevents.Handler       = warmer{}
)
