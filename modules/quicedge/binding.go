package quicedge

import (
	"context"
	"crypto/tls"
	"errors"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"
	"go.uber.org/zap"

	"github.com/lastmile-edge/lastmile/internal/frontdoor"
	"github.com/lastmile-edge/lastmile/internal/requestmetric"
)

// binding is one config's HTTP/3 and WebTransport server for one UDP
// address of one Caddy server.
type binding struct {
	app        *App
	serverName string
	server     *caddyhttp.Server
	network    string
	hostport   string
	port       string

	tlsConfig  *tls.Config
	quicConfig *quic.Config
	h3         *http3.Server
	wt         *webtransport.Server

	ep       *endpoint
	inFlight atomic.Int64 // requests being handled on this binding's connections
	conns    atomic.Int64
}

func newBinding(a *App, name string, srv *caddyhttp.Server, network, hostport, port string) *binding {
	b := &binding{app: a, serverName: name, server: srv, network: network, hostport: hostport, port: port}
	b.quicConfig = a.quicConfig()
	b.h3 = &http3.Server{
		Handler:         http.HandlerFunc(b.serveHTTP),
		EnableDatagrams: a.datagrams(),
		IdleTimeout:     time.Duration(a.ConnIdleTimeout),
		MaxHeaderBytes:  srv.MaxHeaderBytes,
		ConnContext: func(ctx context.Context, _ *quic.Conn) context.Context {
			return context.WithValue(ctx, connSessionsKey, new(connSessions))
		},
	}
	b.wt = &webtransport.Server{
		H3:     b.h3,
		Config: a.sessionFlowControl(),
		// The webtransport handler checks origins inside the route, where
		// it can answer with a clear status and count the refusal.
		CheckOrigin: func(*http.Request) bool { return true },
	}
	return b
}

func (b *binding) start() error {
	// Connection policies select the certificate per ClientHello, which
	// makes `tls internal` and ACME work exactly as on TCP; the HTTP/3
	// wrapper only swaps ALPN to h3 (on a clone, so the TCP side keeps h2).
	b.tlsConfig = http3.ConfigureTLSConfig(b.server.TLSConnPolicies.TLSConfig(b.app.ctx))
	ep, err := loadEndpoint(b.network, b.hostport, b.port)
	if err != nil {
		return err
	}
	b.ep = ep
	ep.attach(b)
	return nil
}

// stop releases the endpoint. If a newer config took it over, this
// binding's connections stay open: their requests already go to the newer
// config. If no config uses it any more, in-flight requests get up to grace
// to finish, then every connection is closed and so is the socket.
func (b *binding) stop(grace time.Duration) error {
	if b.ep == nil {
		return nil
	}
	b.ep.current.CompareAndSwap(b, nil)
	if refs, ok := endpoints.References(b.ep.key); ok && refs > 1 {
		b.ep.forget(b)
		_, err := endpoints.Delete(b.ep.key)
		return err
	}
	timedOut, closeErr := b.ep.shutdown(grace)
	if timedOut {
		b.app.logger.Warn("grace period over: closed HTTP/3 connections with requests in flight", zap.String("address", b.hostport))
	}
	_, err := endpoints.Delete(b.ep.key)
	return errors.Join(closeErr, err)
}

func (b *binding) serveConn(conn *quic.Conn) {
	metrics.connsAccepted.Inc()
	openConns.Add(1)
	b.conns.Add(1)
	cc := connController(conn)
	b.app.warnIfHookMissing(cc)
	liveConns.Store(conn, cc)
	defer func() {
		liveConns.Delete(conn)
		openConns.Add(-1)
		b.conns.Add(-1)
		b.ep.forget(b)
	}()
	// The early listener hands over connections once it has read the
	// ClientHello, which decided whether 0-RTT data is accepted.
	if conn.ConnectionState().Used0RTT {
		metrics.zeroRTTConns.Inc()
	}
	go b.watchHandshake(conn)
	if err := b.wt.ServeQUICConn(conn); err != nil {
		b.app.logger.Debug("serving QUIC connection", zap.Error(err))
	}
	<-conn.Context().Done()
	observeEnded(conn.ConnectionStats())
	st := cc.Stats()
	observeController(st)
	b.app.rememberPath(conn.RemoteAddr(), st)
}

func (b *binding) watchHandshake(conn *quic.Conn) {
	select {
	case <-conn.HandshakeComplete():
		metrics.handshakes.WithLabelValues("ok").Inc()
	case <-conn.Context().Done():
		metrics.handshakes.WithLabelValues("failed").Inc()
	}
}

// h3Request is what a handler inside the Caddy route needs to upgrade an
// HTTP/3 request to WebTransport: Caddy wraps the ResponseWriter, and the
// upgrade needs the raw HTTP/3 one and the server that owns the connection.
type h3Request struct {
	w  http.ResponseWriter
	wt *webtransport.Server
	// The current config's cap on the sessions of the request's
	// connection (counted in the connection's context: sessions.go).
	maxSessions int
}

// serveHTTP hands an HTTP/3 request to the current config's Caddy server
// (which after a reload is not the one that accepted the connection).
func (b *binding) serveHTTP(w http.ResponseWriter, r *http.Request) {
	b.inFlight.Add(1)
	defer b.inFlight.Add(-1)
	cur := b.ep.current.Load()
	if cur == nil {
		// The address left the config while this connection was open.
		w.Header().Set("Connection", "close")
		http.Error(w, "server is shutting down", http.StatusServiceUnavailable)
		return
	}
	requestmetric.HTTP3.Inc()
	if isEarly(r) {
		if !safeMethod(r.Method) && !cur.app.earlyDataAllowed(r) {
			metrics.earlyRequests.WithLabelValues("refused").Inc()
			// RFC 8470: the client retries after the handshake.
			http.Error(w, "request not replay-safe in 0-RTT; retry after the handshake", http.StatusTooEarly)
			return
		}
		metrics.earlyRequests.WithLabelValues("accepted").Inc()
	}
	if r.Method == http.MethodConnect {
		// Only an extended CONNECT can become a WebTransport session; other
		// requests skip the context value and the request copy it costs.
		r = r.WithContext(context.WithValue(r.Context(), h3RequestKey, &h3Request{
			w: w, wt: b.wt,
			maxSessions: cur.app.WebTransportMaxSessions,
		}))
	}
	// The server's front (a fast cache hit path) or the server itself.
	frontdoor.Handler(cur.server).ServeHTTP(w, r)
}

// isEarly reports whether r arrived in 0-RTT, before the client proved
// it is not replaying an earlier flight.
func isEarly(r *http.Request) bool {
	return r.TLS != nil && !r.TLS.HandshakeComplete
}

// safeMethod is RFC 9110 section 9.2.1's list.
func safeMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// UpgradeWebTransport accepts r, an extended CONNECT that arrived over this
// app's HTTP/3, as a WebTransport session. Call it from a handler in the
// route so matchers and auth apply to the CONNECT.
func UpgradeWebTransport(r *http.Request) (*webtransport.Session, error) {
	h3r, ok := r.Context().Value(h3RequestKey).(*h3Request)
	if !ok {
		return nil, ErrNoWebTransport
	}
	return h3r.wt.Upgrade(h3r.w, r)
}
