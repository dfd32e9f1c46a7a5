// Package clienttcp is the listener wrapper client_tcp: it tunes every TCP
// connection a client opens to the edge (HTTP/1.1 and HTTP/2), as
// origin_link tunes the edge's links to origins, carries the connections
// across reloads, and counts their requests.
package clienttcp

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/lastmile-edge/lastmile/internal/promreg"
	"github.com/lastmile-edge/lastmile/internal/requestmetric"
	"github.com/lastmile-edge/lastmile/internal/tcptune"
)

func init() {
	caddy.RegisterModule(ListenerWrapper{})
}

// ListenerWrapper sets the congestion control and TCP_NOTSENT_LOWAT of
// each accepted client connection.
type ListenerWrapper struct {
	// CongestionControl by name. Default bbr where the kernel has it: the
	// last mile is lossy (0.6-7% on mobile and Wi-Fi), and a loss-based
	// controller halves its window at each loss there; else the system
	// default, with a warning.
	CongestionControl string `json:"congestion_control,omitempty"`

	// NotsentLowat caps the bytes queued in the socket that the network
	// has not taken yet (TCP_NOTSENT_LOWAT). Default 16 KiB: HTTP/2 then
	// picks the next frame by priority when the path can take it, instead
	// of queueing megabytes ahead of a newer, more urgent response; -1
	// leaves the kernel's default.
	NotsentLowat int `json:"notsent_lowat,omitempty"`

	// AnswerHits answers HTTP/1.1 cache hits below net/http, for the
	// sites of the fast hit path (docs/ARCHITECTURE.md, "HTTP/1.1 hits
	// below net/http"). Default on: the same answer net/http would send,
	// for a fraction of the CPU; false leaves every request to net/http.
	AnswerHits *bool `json:"answer_hits,omitempty"`

	options tcptune.Options
	logger  *zap.Logger
	warn    *sync.Once
	// warnOpaque: connections arrive as TLS records (see conn.observe).
	warnOpaque *sync.Once
	app        *caddyhttp.App
}

// CaddyModule returns the Caddy module information.
func (ListenerWrapper) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "caddy.listeners.client_tcp",
		New: func() caddy.Module { return new(ListenerWrapper) },
	}
}

// Provision resolves the congestion control and the defaults.
func (lw *ListenerWrapper) Provision(ctx caddy.Context) error {
	lw.logger = ctx.Logger()
	lw.warn, lw.warnOpaque = new(sync.Once), new(sync.Once)
	cc, err := tcptune.ChooseCongestion(lw.CongestionControl)
	switch {
	case errors.Is(err, tcptune.ErrNoBBR):
		lw.logger.Warn("client connections use the system default congestion control", zap.Error(err))
	case err != nil:
		return fmt.Errorf("client_tcp: %w", err)
	}
	lw.CongestionControl = cc
	if lw.NotsentLowat == 0 {
		lw.NotsentLowat = 16 << 10
	}
	lw.options = tcptune.Options{Congestion: cc, NotsentLowat: max(lw.NotsentLowat, 0)}
	lw.app = hookServers(ctx)
	if lw.answerHits() {
		lw.logger.Info("HTTP/1.1 hits of the sites with a fast hit path are answered below net/http (answer_hits)")
	} else {
		lw.logger.Info("HTTP/1.1 hits go through net/http: answer_hits is off")
	}
	if err := requestmetric.Register(ctx.GetMetricsRegistry()); err != nil {
		return err
	}
	return promreg.Register(ctx.GetMetricsRegistry(), metrics.reloaded, answeredHits)
}

// answerHits reports whether HTTP/1.1 hits are answered below net/http.
func (lw *ListenerWrapper) answerHits() bool { return lw.AnswerHits == nil || *lw.AnswerHits }

// Cleanup unhooks the config's http app.
func (lw *ListenerWrapper) Cleanup() error {
	if lw.app != nil {
		hookedApps.Delete(lw.app)
	}
	return nil
}

// Validate checks the sizes.
func (lw *ListenerWrapper) Validate() error {
	if lw.NotsentLowat < -1 || lw.NotsentLowat > 1<<30 {
		return fmt.Errorf("client_tcp: notsent_lowat %d: want -1 (kernel default) or up to 1 GiB", lw.NotsentLowat)
	}
	return nil
}

// WrapListener tunes the connections ln accepts and carries them across
// config reloads (see drain.go).
func (lw *ListenerWrapper) WrapListener(ln net.Listener) net.Listener {
	return newListener(ln, lw)
}

// tune sets the socket options of c. A socket that refuses an option is
// still served, untuned: the connection matters more than its tuning.
func (lw *ListenerWrapper) tune(c net.Conn) {
	if err := lw.options.ApplyConn(socketOf(c)); err != nil {
		lw.warn.Do(func() {
			lw.logger.Warn("tuning client connections failed; they are served untuned", zap.Error(err))
		})
	}
}

// socketOf finds the TCP socket under wrappers listed before client_tcp
// (tls, proxy_protocol), or nil.
func socketOf(c net.Conn) syscall.Conn {
	for range 8 {
		if sc, ok := c.(syscall.Conn); ok {
			return sc
		}
		w, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return nil
		}
		c = w.NetConn()
	}
	return nil
}

// Interface guards
var (
	_ caddy.ListenerWrapper = (*ListenerWrapper)(nil)
	_ caddy.Provisioner     = (*ListenerWrapper)(nil)
	_ caddy.Validator       = (*ListenerWrapper)(nil)
	_ caddy.CleanerUpper    = (*ListenerWrapper)(nil)
)
