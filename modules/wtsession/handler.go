// Package wtsession is the route handler that accepts WebTransport sessions
// over lastmile's HTTP/3 and hands each to a session module (echo, and
// later the RUM collector), with origin checks, a per-client session limit
// and an idle timeout.
package wtsession

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/quic-go/webtransport-go"
	"go.uber.org/zap"

	"github.com/lastmile-edge/lastmile/internal/frontdoor"
	"github.com/lastmile-edge/lastmile/internal/promreg"
	"github.com/lastmile-edge/lastmile/modules/quicedge"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// SessionHandler serves one accepted WebTransport session until it ends.
// Modules in the webtransport.sessions namespace implement it.
type SessionHandler interface {
	ServeSession(s *Session)
}

// Handler upgrades WebTransport CONNECT requests; other requests pass to
// the next handler. Refusals are answered with a status, never a hang.
type Handler struct {
	// Origins are page origins (scheme://host[:port], or * for any) allowed
	// to open sessions besides the site's own, which always may. By default
	// no other site's page can open a session in its visitors' browsers.
	Origins []string `json:"origins,omitempty"`

	// MaxSessionsPerClient bounds the sessions one client IP holds open.
	// Default 16: a few tabs of one user, while one host cannot exhaust
	// the server.
	MaxSessionsPerClient int `json:"max_sessions_per_client,omitempty"`

	// IdleTimeout ends a session with no incoming stream or datagram for
	// this long. Default 60s.
	IdleTimeout caddy.Duration `json:"idle_timeout,omitempty"`

	// SessionRaw is the session module, for example {"handler": "echo"}.
	SessionRaw json.RawMessage `json:"session,omitempty" caddy:"namespace=webtransport.sessions inline_key=handler"`

	session SessionHandler
	logger  *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.webtransport",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision loads the session module and sets defaults.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	if h.MaxSessionsPerClient == 0 {
		h.MaxSessionsPerClient = 16
	}
	if h.IdleTimeout == 0 {
		// Longer than the quic app's 10 s keep-alive and a typical
		// heartbeat, short enough to free abandoned sessions.
		h.IdleTimeout = caddy.Duration(60 * time.Second)
	}
	if h.SessionRaw == nil {
		return errors.New("webtransport: a session module is required")
	}
	mod, err := ctx.LoadModule(h, "SessionRaw")
	if err != nil {
		return fmt.Errorf("loading session module: %w", err)
	}
	h.session = mod.(SessionHandler)
	return promreg.Register(ctx.GetMetricsRegistry(), metrics.open, metrics.opened, metrics.refused)
}

// Validate checks the origins and, once Provision has set the defaults,
// the limits.
func (h *Handler) Validate() error {
	for _, o := range h.Origins {
		if o == "*" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" {
			return fmt.Errorf("webtransport: origin %q: want scheme://host[:port] or *", o)
		}
	}
	if h.MaxSessionsPerClient < 1 {
		return fmt.Errorf("webtransport: max_sessions_per_client %d: want a positive whole number", h.MaxSessionsPerClient)
	}
	if h.IdleTimeout <= 0 {
		return fmt.Errorf("webtransport: idle_timeout %s: want a positive duration", time.Duration(h.IdleTimeout))
	}
	return nil
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if !isWebTransportConnect(r) {
		if rh, ok := h.session.(RequestHandler); ok && rh.HandlesRequest(r) {
			return h.serveRequest(rh, w, r)
		}
		return next.ServeHTTP(w, r)
	}
	if !h.originAllowed(r) {
		return h.refuse("origin", http.StatusForbidden, "origin not allowed")
	}
	client := ClientIP(r)
	if !sessionsPerClient.Acquire(client, h.MaxSessionsPerClient) {
		return h.refuse("limit", http.StatusTooManyRequests, "too many sessions from this client")
	}
	// Before preparing, which may cost an upstream session.
	releaseConn, err := quicedge.ReserveSession(r)
	if err != nil {
		sessionsPerClient.Release(client)
		if errors.Is(err, quicedge.ErrConnSessionLimit) {
			return h.refuse("connection", http.StatusTooManyRequests, "too many sessions on this connection")
		}
		h.logger.Debug("webtransport upgrade failed", zap.Error(err))
		return h.refuse("upgrade", http.StatusBadRequest, "webtransport upgrade failed")
	}
	release := func() {
		releaseConn()
		sessionsPerClient.Release(client)
	}
	prepared, err := h.prepare(r)
	if err != nil {
		release()
		metrics.refused.WithLabelValues("session").Inc()
		return err
	}
	if protocol := chosenProtocol(prepared); protocol != "" {
		w.Header().Set("WT-Protocol", protocol)
	}
	sess, err := quicedge.UpgradeWebTransport(r)
	if err != nil {
		prepared.Abort()
		release()
		h.logger.Debug("webtransport upgrade failed", zap.Error(err))
		return h.refuse("upgrade", http.StatusBadRequest, "webtransport upgrade failed")
	}
	metrics.opened.Inc()
	metrics.open.Inc()
	go func() {
		defer func() {
			metrics.open.Dec()
			release()
		}()
		s := newSession(sess, r, time.Duration(h.IdleTimeout))
		defer s.stopIdleTimer()
		prepared.ServeSession(s)
		s.CloseWithError(0, "")
	}()
	return nil
}

func (h *Handler) refuse(reason string, status int, msg string) error {
	metrics.refused.WithLabelValues(reason).Inc()
	return caddyhttp.Error(status, errors.New("webtransport: "+msg))
}

// originAllowed applies the origin policy. A request without Origin comes
// from a non-browser client, which no page can drive, so it is allowed.
func (h *Handler) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if sameOrigin(origin, r.Host) {
		return true
	}
	for _, o := range h.Origins {
		if o == "*" || strings.EqualFold(o, origin) {
			return true
		}
	}
	return false
}

// PassesThrough reports whether r is neither a WebTransport CONNECT nor a
// request the session module takes: such requests pass on as they came
// (internal/frontdoor).
func (h *Handler) PassesThrough(r *http.Request) bool {
	if isWebTransportConnect(r) {
		return false
	}
	rh, ok := h.session.(RequestHandler)
	return !ok || !rh.HandlesRequest(r)
}

// isWebTransportConnect recognises the extended CONNECT of RFC 9220 with a
// WebTransport :protocol, current ("webtransport-h3") or legacy draft.
func isWebTransportConnect(r *http.Request) bool {
	return r.Method == http.MethodConnect && r.ProtoMajor == 3 &&
		(r.Proto == "webtransport-h3" || r.Proto == "webtransport")
}

// ClientIP is the client's address as Caddy determined it for the
// request: the peer, or what a trusted proxy passed on.
func ClientIP(r *http.Request) string {
	ip, _ := caddyhttp.GetVar(r.Context(), caddyhttp.ClientIPVarKey).(string)
	return ip
}

// PerClient counts what each client IP holds open (sessions, or a session
// module's subscriptions) across config reloads: what it counts outlives
// the config that accepted it.
type PerClient struct {
	mu sync.Mutex
	n  map[string]int
}

// NewPerClient is an empty count.
func NewPerClient() *PerClient { return &PerClient{n: make(map[string]int)} }

var sessionsPerClient = NewPerClient()

// Acquire counts one more for client unless it holds limit already.
func (c *PerClient) Acquire(client string, limit int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[client] >= limit {
		return false
	}
	c.n[client]++
	return true
}

// Release counts one less for client.
func (c *PerClient) Release(client string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[client] <= 1 {
		delete(c.n, client)
		return
	}
	c.n[client]--
}

// Session is an accepted WebTransport session whose idle timer is reset by
// every incoming stream and datagram.
type Session struct {
	*webtransport.Session
	req   *http.Request
	idle  time.Duration
	timer *time.Timer
}

func newSession(s *webtransport.Session, r *http.Request, idle time.Duration) *Session {
	sess := &Session{Session: s, req: r, idle: idle}
	sess.timer = time.AfterFunc(idle, func() {
		s.CloseWithError(sessionIdleCode, "idle timeout")
	})
	return sess
}

// sessionIdleCode is the application error code a session closed for
// idleness carries.
const sessionIdleCode webtransport.SessionErrorCode = 0x1d1e

// Request is the CONNECT request that opened the session (its headers:
// User-Agent, Origin, ...).
func (s *Session) Request() *http.Request { return s.req }

// Touch resets the idle timer; session modules call it on activity the
// accessors below do not see, such as data on an open stream.
func (s *Session) Touch() { s.timer.Reset(s.idle) }

func (s *Session) stopIdleTimer() { s.timer.Stop() }

// IdleTimeout is how long the session may go without activity; a module
// whose sessions legitimately only receive touches it more often.
func (s *Session) IdleTimeout() time.Duration { return s.idle }

// AcceptStream accepts the client's next bidirectional stream.
func (s *Session) AcceptStream(ctx context.Context) (*webtransport.Stream, error) {
	str, err := s.Session.AcceptStream(ctx)
	if err == nil {
		s.Touch()
	}
	return str, err
}

// AcceptUniStream accepts the client's next unidirectional stream.
func (s *Session) AcceptUniStream(ctx context.Context) (*webtransport.ReceiveStream, error) {
	str, err := s.Session.AcceptUniStream(ctx)
	if err == nil {
		s.Touch()
	}
	return str, err
}

// ReceiveDatagram receives the client's next datagram.
func (s *Session) ReceiveDatagram(ctx context.Context) ([]byte, error) {
	b, err := s.Session.ReceiveDatagram(ctx)
	if err == nil {
		s.Touch()
	}
	return b, err
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
	_ frontdoor.PassThrough       = (*Handler)(nil)
)
