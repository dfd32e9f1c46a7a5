package wtproxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"
	"golang.org/x/net/http/httpguts"
)

// connPool holds the QUIC connections to one upstream, each carrying up to
// perConn sessions (webtransport-go's ClientConn multiplexes them).
type connPool struct {
	tlsConf *tls.Config
	addr    string
	wt      *webtransport.Transport

	mu      sync.Mutex
	perConn int
	conns   []*upstreamConn
	closed  bool
}

// upstreamConn is one QUIC connection and the sessions it carries.
type upstreamConn struct {
	qconn    *quic.Conn
	client   *webtransport.ClientConn
	sessions int // guarded by connPool.mu
}

// sessionDataWindow is the stream data an upstream session may send
// ahead of the relay's reading, over all its streams. Several sessions on
// one connection need WebTransport's per-session flow control; this
// window keeps one slow browser's session from taking the connection's.
const sessionDataWindow = 8 << 20

func newConnPool(tlsConf *tls.Config, addr string, perConn, maxStreams int) *connPool {
	wt := &webtransport.Transport{Config: &webtransport.Config{
		MaxIncomingStreams:    int64(maxStreams),
		MaxIncomingUniStreams: int64(maxStreams),
		MaxIncomingData:       sessionDataWindow,
	}}
	return &connPool{tlsConf: tlsConf, addr: addr, wt: wt, perConn: perConn}
}

// stopSharing gives each session its own connection from now on.
func (p *connPool) stopSharing() {
	p.mu.Lock()
	p.perConn = 1
	p.mu.Unlock()
}

// rejected reports whether the upstream rejected the CONNECT request
// without answering it.
func rejected(err error) bool {
	h3err, ok := errors.AsType[*http3.Error](err)
	return ok && h3err.ErrorCode == http3.ErrCodeRequestRejected
}

// upstreamQUICConfig enables what WebTransport needs. No keep-alive: a
// connection without sessions may die of idleness, and one with sessions
// carries their traffic and the peer's.
var upstreamQUICConfig = &quic.Config{
	EnableDatagrams:                  true,
	EnableStreamResetPartialDelivery: true,
	MaxIdleTimeout:                   30 * time.Second,
}

// get returns a connection with room for one more session, dialling one
// if none has room; reused says whether the handshake was saved.
func (p *connPool) get(ctx context.Context) (c *upstreamConn, reused bool, err error) {
	p.mu.Lock()
	live := p.conns[:0]
	for _, uc := range p.conns {
		if uc.qconn.Context().Err() == nil || uc.sessions > 0 {
			live = append(live, uc)
		}
	}
	clear(p.conns[len(live):])
	p.conns = live
	for _, uc := range p.conns {
		if uc.sessions < p.perConn && uc.qconn.Context().Err() == nil {
			uc.sessions++
			p.mu.Unlock()
			return uc, true, nil
		}
	}
	p.mu.Unlock()

	qconn, err := quic.DialAddr(ctx, p.addr, p.tlsConf, upstreamQUICConfig)
	if err != nil {
		return nil, false, err
	}
	client, err := p.wt.NewClientConn(qconn)
	if err != nil {
		qconn.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeNoError), "")
		return nil, false, err
	}
	uc := &upstreamConn{qconn: qconn, client: client, sessions: 1}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.conns = append(p.conns, uc)
	}
	return uc, false, nil
}

// release returns a session's place; a connection of a closed pool is
// closed with its last session.
func (p *connPool) release(uc *upstreamConn) {
	p.mu.Lock()
	uc.sessions--
	last := uc.sessions == 0 && (p.closed || !containsConn(p.conns, uc))
	p.mu.Unlock()
	if last {
		uc.qconn.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeNoError), "")
	}
}

func containsConn(conns []*upstreamConn, uc *upstreamConn) bool {
	for _, c := range conns {
		if c == uc {
			return true
		}
	}
	return false
}

// close closes the idle connections and lets busy ones close with their
// last session.
func (p *connPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, uc := range p.conns {
		if uc.sessions == 0 {
			uc.qconn.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeNoError), "")
		}
	}
}

func loadCAPool(files []string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	for _, f := range files {
		pem, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("tls trusted CA: %w", err)
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls trusted CA %s: no PEM certificate in it", f)
		}
	}
	return pool, nil
}

// upstreamURL is the upstream's URL for the CONNECT request r: the
// request's path under the upstream's, the request's query, and its
// authority, which the upstream sees as Host (passed on, as reverse_proxy
// does, so the upstream's same-origin check and virtual hosts work; the
// connection itself goes to the configured address).
func upstreamURL(base *url.URL, r *http.Request) string {
	u := *base
	u.Host = r.Host
	u.Path = strings.TrimSuffix(base.Path, "/") + r.URL.Path
	u.RawPath = ""
	u.RawQuery = r.URL.RawQuery
	return u.String()
}

// upstreamHeader is the CONNECT request's header for the upstream: the
// forwarded headers, the client's offer of relayed application protocols
// (see offeredProtocols), and who the client is, as reverse_proxy tells it.
func upstreamHeader(r *http.Request, forward, offer []string) http.Header {
	hdr := make(http.Header, len(forward)+4)
	for _, name := range forward {
		if v := r.Header.Values(name); len(v) > 0 {
			hdr[http.CanonicalHeaderKey(name)] = v
		}
	}
	peer, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		peer = r.RemoteAddr
	}
	// A trusted proxy's X-Forwarded-For is kept and extended; anyone
	// else's is a claim the client made about itself.
	trusted, _ := caddyhttp.GetVar(r.Context(), caddyhttp.TrustedProxyVarKey).(bool)
	xff := peer
	if prior := r.Header.Values("X-Forwarded-For"); trusted && len(prior) > 0 {
		xff = strings.Join(prior, ", ") + ", " + peer
	}
	hdr.Set("X-Forwarded-For", xff)
	hdr.Set("X-Forwarded-Proto", "https")
	hdr.Set("X-Forwarded-Host", r.Host)
	hdr.Set("Forwarded", forwardedElement(peer, r.Host))
	setOffer(hdr, offer)
	return hdr
}

// forwardedElement is RFC 7239's element for the client: an IPv6 address
// is quoted with its brackets.
func forwardedElement(peer, host string) string {
	node := peer
	if strings.Contains(peer, ":") {
		node = `"[` + peer + `]"`
	}
	return "for=" + node + `;host="` + strings.ReplaceAll(host, `"`, "") + `";proto=https`
}

func validHeaderName(h string) bool { return httpguts.ValidHeaderFieldName(h) }

// refusal is why an upstream session could not be opened, as the status
// the browser gets and the reason it is counted under.
func refusal(ctx context.Context, resp *http.Response, err error) (status int, reason string) {
	switch {
	case resp != nil && (resp.StatusCode < 200 || resp.StatusCode > 299):
		return resp.StatusCode, "status"
	case errors.Is(err, errNotOffered) || isALPNError(err):
		return http.StatusBadGateway, "protocol"
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		return http.StatusGatewayTimeout, "timeout"
	case isTimeout(err):
		return http.StatusGatewayTimeout, "timeout"
	default:
		return http.StatusBadGateway, "unreachable"
	}
}

// isALPNError: webtransport-go refused the upstream's WT-Protocol (not a
// string, or a protocol not relayed).
func isALPNError(err error) bool {
	serr, ok := errors.AsType[*webtransport.SessionError](err)
	return ok && serr.ErrorCode == webtransport.WTALPNErrorCode
}

func isTimeout(err error) bool {
	var idle *quic.IdleTimeoutError
	var hs *quic.HandshakeTimeoutError
	return errors.As(err, &idle) || errors.As(err, &hs)
}
