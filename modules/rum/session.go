package rum

import (
	"github.com/caddyserver/caddy/v2"
	"golang.org/x/time/rate"

	"github.com/lastmile-edge/lastmile/modules/wtsession"
)

func init() {
	caddy.RegisterModule(Session{})
}

// Session takes beacons as WebTransport datagrams on a session the page
// already has open to the edge: no request, no headers, one packet.
type Session struct {
	// RegionHeader and Regions label metrics as the rum handler's do,
	// from the CONNECT request's headers.
	RegionHeader string   `json:"region_header,omitempty"`
	Regions      []string `json:"regions,omitempty"`
	// RateLimit is datagrams per second per session. Default 2.
	RateLimit float64 `json:"rate_limit,omitempty"`
	// RawSink appends accepted beacons as JSON lines to a rotating file;
	// the same file as the rum handler's takes both.
	RawSink *RawSink `json:"raw_sink,omitempty"`

	sink *sink
}

// CaddyModule returns the Caddy module information.
func (Session) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "webtransport.sessions.rum",
		New: func() caddy.Module { return new(Session) },
	}
}

// Provision sets the default rate, opens the raw sink and registers the
// metrics.
func (s *Session) Provision(ctx caddy.Context) error {
	if s.RateLimit == 0 {
		s.RateLimit = 2
	}
	if s.RawSink != nil {
		sk, err := s.RawSink.open()
		if err != nil {
			return err
		}
		s.sink = sk
	}
	return registerMetrics(ctx.GetMetricsRegistry())
}

// Validate checks the rate and the raw sink once Provision has set the
// defaults.
func (s *Session) Validate() error {
	if err := validateRateLimit(s.RateLimit); err != nil {
		return err
	}
	if s.RawSink != nil {
		return s.RawSink.validate()
	}
	return nil
}

// Cleanup releases the raw sink.
func (s *Session) Cleanup() error {
	if s.sink != nil {
		return s.RawSink.release()
	}
	return nil
}

// ServeSession counts every datagram that decodes as a beacon.
func (s *Session) ServeSession(sess *wtsession.Session) {
	ctx := sess.Context()
	limiter := rate.NewLimiter(rate.Limit(s.RateLimit), int(max(1, 4*s.RateLimit)))
	c := clientOf(sess.Request(), s.RegionHeader, s.Regions)
	for {
		data, err := sess.ReceiveDatagram(ctx)
		if err != nil {
			return
		}
		reason := "rate_limited"
		if limiter.Allow() {
			reason = take(data, "webtransport", c, s.sink)
		}
		if reason != "" {
			metrics.rejected.WithLabelValues(reason).Inc()
		}
	}
}

// Interface guards
var (
	_ caddy.Provisioner        = (*Session)(nil)
	_ caddy.Validator          = (*Session)(nil)
	_ caddy.CleanerUpper       = (*Session)(nil)
	_ wtsession.SessionHandler = (*Session)(nil)
)
