// Package wtproxy is the `proxy` WebTransport session module: each
// browser session accepted by the webtransport handler is relayed to a
// session it opens on the site's own WebTransport server, streams,
// datagrams, resets and close codes included, so a site can put its
// WebTransport application behind the edge.
package wtproxy

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/quic-go/quic-go/http3"
	"go.uber.org/zap"

	"github.com/lastmile-edge/lastmile/internal/promreg"
	"github.com/lastmile-edge/lastmile/modules/wtsession"
)

func init() {
	caddy.RegisterModule(Proxy{})
}

// Proxy relays each session to a session on the upstream WebTransport
// server. The browser's session is only accepted once the upstream has
// accepted its own, so an upstream that refuses, is down or too slow is
// answered with its status, 502 or 504.
//
// Each default below is set in Provision with its reason.
type Proxy struct {
	// Upstream is the upstream's https URL. The CONNECT request's path is
	// appended to its path, its query replaces the URL's query, and its
	// Host is passed on.
	Upstream string `json:"upstream"`

	// TLS configures the connection to the upstream.
	TLS *UpstreamTLS `json:"tls,omitempty"`

	// DialTimeout bounds the upstream's QUIC handshake and its answer to
	// the CONNECT. Default 5s.
	DialTimeout caddy.Duration `json:"dial_timeout,omitempty"`

	// BufferSize is the copy buffer of each direction of each relayed
	// stream: the most the relay holds of a stream's data. Default 128
	// KiB; a stream starts with 16 KiB and grows to it once a read fills
	// that.
	BufferSize int `json:"buffer_size,omitempty"`

	// MaxStreams bounds the streams relayed at once in one session (both
	// sides' streams together); further streams wait. Default 100.
	MaxStreams int `json:"max_streams,omitempty"`

	// SessionsPerConnection is how many sessions share one QUIC
	// connection to the upstream. Default 8. Sharing needs WebTransport
	// flow control enabled on the upstream (webtransport-go refuses a
	// second session otherwise); an upstream that refuses gets one
	// connection per session.
	SessionsPerConnection int `json:"sessions_per_connection,omitempty"`

	// ForwardHeaders are request headers passed to the upstream besides
	// Origin, Cookie, User-Agent and Accept-Language, which always are, and X-Forwarded-For,
	// X-Forwarded-Proto, X-Forwarded-Host and Forwarded, which the edge
	// sets. Other headers (credentials for the edge, for instance) stay
	// at the edge.
	ForwardHeaders []string `json:"forward_headers,omitempty"`

	// Protocols are the application protocols whose negotiation is
	// relayed: the browser's WT-Available-Protocols reaches the upstream
	// with these of them, and the upstream's WT-Protocol the browser.
	// None by default: no offer is relayed.
	Protocols []string `json:"protocols,omitempty"`

	upstream *url.URL
	forward  []string
	tlsConf  *tls.Config
	pool     *connPool
	// negotiating carries the sessions of browsers that offer relayed
	// protocols (see negotiate.go); nil without Protocols.
	negotiating *connPool
	logger      *zap.Logger
}

// UpstreamTLS is the TLS client setup for the upstream, named as
// reverse_proxy's http transport names it.
type UpstreamTLS struct {
	// RootCAPEMFiles are PEM files of the CAs to trust instead of the
	// system's.
	RootCAPEMFiles []string `json:"root_ca_pem_files,omitempty"`
	// ServerName is the name sent in SNI and verified in the upstream's
	// certificate. Default: the upstream URL's host.
	ServerName string `json:"server_name,omitempty"`
	// ClientCertificateFile and ClientCertificateKeyFile are the PEM
	// certificate and key the edge presents to an upstream that asks.
	ClientCertificateFile    string `json:"client_certificate_file,omitempty"`
	ClientCertificateKeyFile string `json:"client_certificate_key_file,omitempty"`
	// InsecureSkipVerify accepts any certificate: for labs only.
	InsecureSkipVerify bool `json:"insecure_skip_verify,omitempty"`
}

// CaddyModule returns the Caddy module information.
func (Proxy) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "webtransport.sessions.proxy",
		New: func() caddy.Module { return new(Proxy) },
	}
}

// Provision sets defaults, parses the upstream and loads the TLS files.
func (p *Proxy) Provision(ctx caddy.Context) error {
	p.logger = ctx.Logger()
	if p.DialTimeout == 0 {
		// A QUIC handshake and one request round trip; longer means the
		// upstream is overloaded or unreachable, and the browser waits.
		p.DialTimeout = caddy.Duration(5 * time.Second)
	}
	if p.BufferSize == 0 {
		// A bulk stream relayed in writes of 128 KiB costs the edge about
		// 5% less CPU per byte than in 32 KiB ones
		// (docs/results/wtproxy.md); only bulk streams grow their buffer
		// to it (relay.pipe), and 100 streams hold at most 25.6 MiB.
		p.BufferSize = 128 << 10
	}
	if p.MaxStreams == 0 {
		// The quic app's default max_incoming_streams: as many as one
		// browser connection may open.
		p.MaxStreams = 100
	}
	if p.SessionsPerConnection == 0 {
		// Saves the handshake for most sessions while a few slow
		// sessions cannot take all of one connection's flow-control
		// window from many others.
		p.SessionsPerConnection = 8
	}
	u, err := parseUpstream(p.Upstream)
	if err != nil {
		return err
	}
	p.upstream = u
	p.forward = append(slices.Clone(alwaysForwarded), p.ForwardHeaders...)
	if p.tlsConf, err = p.TLS.clientConfig(u); err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	p.pool = newConnPool(p.tlsConf, u.Host, p.SessionsPerConnection, p.MaxStreams)
	if len(p.Protocols) > 0 {
		p.negotiating = newConnPool(p.tlsConf, u.Host, p.SessionsPerConnection, p.MaxStreams)
		p.negotiating.wt.ApplicationProtocols = p.Protocols
	}
	return promreg.Register(ctx.GetMetricsRegistry(), metrics.collectors()...)
}

// alwaysForwarded are the headers an application behind the edge needs
// to recognise the page and the user.
var alwaysForwarded = []string{"Origin", "Cookie", "User-Agent", "Accept-Language"}

// maxBufferSize bounds BufferSize: beyond QUIC's initial stream window a
// bigger buffer only holds more memory per stream.
const maxBufferSize = 16 << 20

// Validate checks the settings once Provision has set the defaults.
func (p *Proxy) Validate() error {
	switch {
	case p.DialTimeout <= 0:
		return fmt.Errorf("proxy: dial_timeout %s: want a positive duration", time.Duration(p.DialTimeout))
	case p.BufferSize < 1024 || p.BufferSize > maxBufferSize:
		return fmt.Errorf("proxy: buffer_size %d: want 1024 to %d bytes", p.BufferSize, maxBufferSize)
	case p.MaxStreams < 1:
		return fmt.Errorf("proxy: max_streams %d: want a positive whole number", p.MaxStreams)
	case p.SessionsPerConnection < 1:
		return fmt.Errorf("proxy: sessions_per_connection %d: want a positive whole number", p.SessionsPerConnection)
	}
	for _, h := range p.ForwardHeaders {
		if !validHeaderName(h) {
			return fmt.Errorf("proxy: forward_headers %q: not a header name", h)
		}
		// The offer is relayed cut to Protocols, which webtransport-go's
		// client also checks the upstream's choice against.
		if strings.EqualFold(h, availableProtocolsHeader) {
			return fmt.Errorf("proxy: forward_headers %q: list the application protocols to relay with protocols", h)
		}
	}
	if len(p.Protocols) > maxProtocols {
		return fmt.Errorf("proxy: protocols: %d listed, want at most %d", len(p.Protocols), maxProtocols)
	}
	for i, name := range p.Protocols {
		if err := validProtocol(name); err != nil {
			return fmt.Errorf("proxy: protocols %q: %w", name, err)
		}
		if slices.Contains(p.Protocols[:i], name) {
			return fmt.Errorf("proxy: protocols %q: listed twice", name)
		}
	}
	return nil
}

// Cleanup closes the upstream connections no session uses; the others
// close when their last session ends (sessions outlive their config).
func (p *Proxy) Cleanup() error {
	if p.negotiating != nil {
		p.negotiating.close()
	}
	if p.pool != nil {
		p.pool.close()
	}
	return nil
}

func parseUpstream(s string) (*url.URL, error) {
	if s == "" {
		return nil, errors.New("proxy: an upstream URL is required")
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.Fragment != "" {
		return nil, fmt.Errorf("proxy: upstream %q: want https://host[:port][/path]", s)
	}
	if u.Port() == "" {
		u.Host += ":443"
	}
	return u, nil
}

func (t *UpstreamTLS) clientConfig(u *url.URL) (*tls.Config, error) {
	return t.ClientConfig(u.Hostname(), http3.NextProtoH3)
}

// ClientConfig is the TLS client config for an upstream named
// serverName (unless ServerName overrides it) speaking nextProtos. A nil
// UpstreamTLS is the system's defaults.
func (t *UpstreamTLS) ClientConfig(serverName string, nextProtos ...string) (*tls.Config, error) {
	conf := &tls.Config{ServerName: serverName, NextProtos: nextProtos, MinVersion: tls.VersionTLS12}
	if t == nil {
		return conf, nil
	}
	if t.ServerName != "" {
		conf.ServerName = t.ServerName
	}
	conf.InsecureSkipVerify = t.InsecureSkipVerify
	if len(t.RootCAPEMFiles) > 0 {
		pool, err := loadCAPool(t.RootCAPEMFiles)
		if err != nil {
			return nil, err
		}
		conf.RootCAs = pool
	}
	if (t.ClientCertificateFile == "") != (t.ClientCertificateKeyFile == "") {
		return nil, errors.New("tls client certificate: want both the certificate and the key file")
	}
	if t.ClientCertificateFile != "" {
		cert, err := tls.LoadX509KeyPair(t.ClientCertificateFile, t.ClientCertificateKeyFile)
		if err != nil {
			return nil, fmt.Errorf("tls client certificate: %w", err)
		}
		conf.Certificates = []tls.Certificate{cert}
	}
	return conf, nil
}

// Interface guards
var (
	_ caddy.Provisioner         = (*Proxy)(nil)
	_ caddy.Validator           = (*Proxy)(nil)
	_ caddy.CleanerUpper        = (*Proxy)(nil)
	_ wtsession.SessionHandler  = (*Proxy)(nil)
	_ wtsession.SessionPreparer = (*Proxy)(nil)
)

// ServeSession is never reached: the webtransport handler serves the
// session PrepareSession returned.
func (p *Proxy) ServeSession(s *wtsession.Session) {
	s.CloseWithError(codeInternal, "proxy session was not prepared")
}
