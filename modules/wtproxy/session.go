package wtproxy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/quic-go/webtransport-go"
	"go.uber.org/zap"

	"github.com/lastmile-edge/lastmile/modules/wtsession"
)

// PrepareSession opens the upstream session for the CONNECT request r
// before the browser's session is accepted, so that a refusal reaches the
// browser as a status.
func (p *Proxy) PrepareSession(r *http.Request) (wtsession.PreparedSession, error) {
	ctx, cancel := context.WithTimeout(r.Context(), time.Duration(p.DialTimeout))
	defer cancel()
	start := time.Now()
	offer := offeredProtocols(r, p.Protocols)
	pool := p.poolFor(offer)
	uc, reused, resp, up, err := p.open(ctx, r, pool, offer)
	if err != nil {
		return nil, p.refuse(ctx, resp, err)
	}
	metrics.observeDial(time.Since(start), reused)
	// webtransport-go checked the choice against every protocol relayed;
	// this browser may have offered fewer.
	protocol := up.SessionState().ApplicationProtocol
	if protocol != "" && !slices.Contains(offer, protocol) {
		up.CloseWithError(webtransport.WTALPNErrorCode, "protocol not offered")
		pool.release(uc)
		return nil, p.refuse(ctx, resp, fmt.Errorf("%w: %q", errNotOffered, protocol))
	}
	return &relaySession{proxy: p, pool: pool, conn: uc, upstream: up, protocol: protocol}, nil
}

// errNotOffered: the upstream chose an application protocol the browser
// did not offer.
var errNotOffered = errors.New("the upstream chose an application protocol the client did not offer")

// open opens the upstream session on a pooled connection. An upstream
// that refuses a second session on a connection (webtransport-go does
// unless both sides enable WebTransport flow control) gets a connection
// per session from then on.
func (p *Proxy) open(ctx context.Context, r *http.Request, pool *connPool, offer []string) (uc *upstreamConn, reused bool, resp *http.Response, up *webtransport.Session, err error) {
	for {
		uc, reused, err = pool.get(ctx)
		if err != nil {
			return nil, false, nil, nil, err
		}
		// The session outlives ctx: webtransport-go detaches it.
		resp, up, err = uc.client.Dial(ctx, upstreamURL(p.upstream, r), upstreamHeader(r, p.forward, offer))
		if err == nil {
			return uc, reused, resp, up, nil
		}
		pool.release(uc)
		if !reused || !rejected(err) {
			return nil, false, resp, nil, err
		}
		pool.stopSharing()
		p.logger.Warn("upstream refuses several sessions per connection: enable WebTransport flow control on it to save a handshake per session")
	}
}

func (p *Proxy) refuse(ctx context.Context, resp *http.Response, err error) error {
	status, reason := refusal(ctx, resp, err)
	metrics.refused.WithLabelValues(reason).Inc()
	p.logger.Debug("upstream refused the session", zap.String("reason", reason), zap.Int("status", status), zap.Error(err))
	return caddyhttp.Error(status, err)
}

// relaySession is one browser session's upstream session, opened and
// waiting for the browser's to be accepted.
type relaySession struct {
	proxy    *Proxy
	pool     *connPool
	conn     *upstreamConn
	upstream *webtransport.Session
	protocol string // the upstream's WT-Protocol, "" if none
}

// ApplicationProtocol is the upstream's choice, which the browser gets.
func (rs *relaySession) ApplicationProtocol() string { return rs.protocol }

func (rs *relaySession) ServeSession(s *wtsession.Session) {
	defer rs.pool.release(rs.conn)
	metrics.sessionsOpen.Inc()
	defer metrics.sessionsOpen.Dec()
	metrics.sessions.Inc()
	newRelay(s, rs.upstream, rs.proxy.BufferSize, rs.proxy.MaxStreams).run()
}

func (rs *relaySession) Abort() {
	rs.upstream.CloseWithError(codeClientGone, "client session not accepted")
	rs.pool.release(rs.conn)
}
