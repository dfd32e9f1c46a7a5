// Package wtfanout is the `fanout` WebTransport session module: browsers
// subscribe to channels over a small control protocol, and for each
// channel with subscribers the edge keeps one Server-Sent Events
// subscription to the origin and delivers every event to every
// subscriber (streams or datagrams), with replay for late joiners,
// resume by event id and a bounded queue per subscriber. The same
// channels are served as plain SSE on the same path for browsers without
// WebTransport. The protocol is in docs/WEBTRANSPORT.md.
package wtfanout

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"golang.org/x/net/http/httpguts"

	"github.com/lastmile-edge/lastmile/internal/promreg"
	"github.com/lastmile-edge/lastmile/modules/wtproxy"
	"github.com/lastmile-edge/lastmile/modules/wtsession"
)

func init() {
	caddy.RegisterModule(Fanout{})
}

// Fanout fans each channel's origin event stream out to the sessions and
// SSE requests subscribed to it. Each default is set in Provision with
// its reason.
type Fanout struct {
	// Upstream is the origin's event stream URL (http or https) with
	// {channel} where the path-escaped channel name goes, for example
	// https://origin/events/{channel}.
	Upstream string `json:"upstream"`

	// TLS configures https upstreams, as for the proxy module.
	TLS *wtproxy.UpstreamTLS `json:"tls,omitempty"`

	// Headers are sent with every upstream request (a token the origin
	// wants, say). Nothing of the browsers' requests is sent: one
	// upstream subscription serves every user.
	Headers http.Header `json:"headers,omitempty"`

	// Replay is how many of a channel's last events a new subscriber
	// gets first. Default 16; 0 replays nothing.
	Replay *int `json:"replay,omitempty"`

	// Queue is how many events may wait for one subscriber. Default 64.
	Queue int `json:"queue,omitempty"`

	// Overflow is what happens when a subscriber's queue is full:
	// "notify" (default) drops the event and tells the subscriber how
	// many it missed; "close" ends the subscription.
	Overflow string `json:"overflow,omitempty"`

	// MaxSubscriptions bounds one session's subscriptions. Default 32.
	MaxSubscriptions int `json:"max_subscriptions,omitempty"`

	// MaxSubscriptionsPerClient bounds one client IP's subscriptions
	// over all its sessions and SSE requests. Default 256.
	MaxSubscriptionsPerClient int `json:"max_subscriptions_per_client,omitempty"`

	// NoDatagrams delivers every event on streams, even to subscribers
	// that ask for datagrams.
	NoDatagrams bool `json:"no_datagrams,omitempty"`

	// ReconnectMin and ReconnectMax bound the backoff between upstream
	// attempts. Defaults 500ms and 30s. An origin's retry field is
	// honoured within them.
	ReconnectMin caddy.Duration `json:"reconnect_min,omitempty"`
	ReconnectMax caddy.Duration `json:"reconnect_max,omitempty"`

	// Linger keeps a channel's upstream subscription this long after its
	// last subscriber left. Default 5s.
	Linger *caddy.Duration `json:"linger,omitempty"`

	// DialTimeout bounds connecting to the origin and its response
	// header. Default 10s.
	DialTimeout caddy.Duration `json:"dial_timeout,omitempty"`

	// MaxEventSize bounds an origin event's data and each line of the
	// origin's stream; larger events are dropped and counted. Default
	// 64 KiB.
	MaxEventSize int `json:"max_event_size,omitempty"`

	hub    *hub
	hubKey string
}

// CaddyModule returns the Caddy module information.
func (Fanout) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "webtransport.sessions.fanout",
		New: func() caddy.Module { return new(Fanout) },
	}
}

// Limits of the settings, so that one config cannot make the edge hold
// unbounded memory per channel or subscriber.
const (
	maxReplay    = 4096
	maxQueue     = 65536
	maxEventSize = 16 << 20
)

// Provision sets defaults and takes the hub for these settings, shared
// with every other config that has the same.
func (f *Fanout) Provision(ctx caddy.Context) error {
	if f.Replay == nil {
		// A page renders at once with the last few updates, which cost
		// 16 events per channel.
		n := 16
		f.Replay = &n
	}
	if f.Queue == 0 {
		// Room for a replay and a burst: four times the default replay.
		f.Queue = 64
	}
	if f.Overflow == "" {
		f.Overflow = "notify"
	}
	if f.MaxSubscriptions == 0 {
		// A page with a few dozen live widgets.
		f.MaxSubscriptions = 32
	}
	if f.MaxSubscriptionsPerClient == 0 {
		// Several tabs of such pages, or a NAT of a few users; an
		// attacker's host cannot open more upstream subscriptions.
		f.MaxSubscriptionsPerClient = 256
	}
	if f.ReconnectMin == 0 {
		f.ReconnectMin = caddy.Duration(500 * time.Millisecond)
	}
	if f.ReconnectMax == 0 {
		// EventSource's own retry is 3s; 30s spares an origin that is
		// down while it comes back.
		f.ReconnectMax = caddy.Duration(30 * time.Second)
	}
	if f.Linger == nil {
		// A page navigation resubscribes within a few seconds.
		d := caddy.Duration(5 * time.Second)
		f.Linger = &d
	}
	if f.DialTimeout == 0 {
		f.DialTimeout = caddy.Duration(10 * time.Second)
	}
	if f.MaxEventSize == 0 {
		// Fits a datagram-sized update a thousand times, and any
		// reasonable live document.
		f.MaxEventSize = 64 << 10
	}
	if err := f.validate(); err != nil {
		return err
	}
	set := hubSettings{
		Upstream: f.Upstream, TLS: f.TLS, Headers: f.Headers, Replay: *f.Replay, MaxEventSize: f.MaxEventSize,
		BackoffMin: time.Duration(f.ReconnectMin), BackoffMax: time.Duration(f.ReconnectMax),
		Linger: time.Duration(*f.Linger), DialTimeout: time.Duration(f.DialTimeout),
	}
	f.hubKey = set.key()
	logger := ctx.Logger()
	h, _, err := hubs.LoadOrNew(f.hubKey, func() (caddy.Destructor, error) { return newHub(set, logger) })
	if err != nil {
		return fmt.Errorf("fanout: %w", err)
	}
	f.hub = h.(*hub)
	return promreg.Register(ctx.GetMetricsRegistry(), collectors()...)
}

// Validate checks the settings once Provision has set the defaults.
// Provision runs the same checks before it builds the hub, so a bad
// config never reaches an origin.
func (f *Fanout) Validate() error { return f.validate() }

func (f *Fanout) validate() error {
	if err := validUpstream(f.Upstream); err != nil {
		return err
	}
	switch {
	case *f.Replay < 0 || *f.Replay > maxReplay:
		return fmt.Errorf("fanout: replay %d: want 0 to %d events", *f.Replay, maxReplay)
	case f.Queue < 1 || f.Queue > maxQueue:
		return fmt.Errorf("fanout: queue %d: want 1 to %d events", f.Queue, maxQueue)
	case f.Queue < *f.Replay:
		return fmt.Errorf("fanout: queue %d is smaller than replay %d: a replay must fit the queue", f.Queue, *f.Replay)
	case f.Overflow != "notify" && f.Overflow != "close":
		return fmt.Errorf("fanout: overflow %q: want notify or close", f.Overflow)
	case f.MaxSubscriptions < 1:
		return fmt.Errorf("fanout: max_subscriptions %d: want a positive whole number", f.MaxSubscriptions)
	case f.MaxSubscriptionsPerClient < 1:
		return fmt.Errorf("fanout: max_subscriptions_per_client %d: want a positive whole number", f.MaxSubscriptionsPerClient)
	case f.ReconnectMin <= 0 || f.ReconnectMax < f.ReconnectMin:
		return fmt.Errorf("fanout: reconnect %s %s: want 0 < min <= max", time.Duration(f.ReconnectMin), time.Duration(f.ReconnectMax))
	case *f.Linger < 0:
		return fmt.Errorf("fanout: linger %s: want a duration of 0 or more", time.Duration(*f.Linger))
	case f.DialTimeout <= 0:
		return fmt.Errorf("fanout: dial_timeout %s: want a positive duration", time.Duration(f.DialTimeout))
	case f.MaxEventSize < 64 || f.MaxEventSize > maxEventSize:
		return fmt.Errorf("fanout: max_event_size %d: want 64 to %d bytes", f.MaxEventSize, maxEventSize)
	}
	for name, values := range f.Headers {
		if !httpguts.ValidHeaderFieldName(name) {
			return fmt.Errorf("fanout: header %q: not a header name", name)
		}
		for _, v := range values {
			if !httpguts.ValidHeaderFieldValue(v) {
				return fmt.Errorf("fanout: header %s: value %q is not a valid header value", name, v)
			}
		}
	}
	if _, err := f.TLS.ClientConfig("origin"); err != nil {
		return fmt.Errorf("fanout: %w", err)
	}
	return nil
}

func validUpstream(s string) error {
	if s == "" {
		return fmt.Errorf("fanout: an upstream URL template is required")
	}
	if strings.Count(s, channelPlaceholder) != 1 {
		return fmt.Errorf("fanout: upstream %q: want %s exactly once", s, channelPlaceholder)
	}
	// The channel may only choose a path or query on one origin.
	a, errA := url.Parse(upstreamURL(s, "a"))
	b, errB := url.Parse(upstreamURL(s, "b"))
	if errA != nil || errB != nil || (a.Scheme != "https" && a.Scheme != "http") || a.Host == "" || a.Host != b.Host ||
		a.User != nil || a.Fragment != "" {
		return fmt.Errorf("fanout: upstream %q: want http[s]://host[:port]/path with %s in its path or query", s, channelPlaceholder)
	}
	return nil
}

// Cleanup lets go of the hub; the last config to let go of it closes it.
func (f *Fanout) Cleanup() error {
	if f.hub != nil {
		_, err := hubs.Delete(f.hubKey)
		return err
	}
	return nil
}

// Interface guards
var (
	_ caddy.Provisioner        = (*Fanout)(nil)
	_ caddy.Validator          = (*Fanout)(nil)
	_ caddy.CleanerUpper       = (*Fanout)(nil)
	_ wtsession.SessionHandler = (*Fanout)(nil)
	_ wtsession.RequestHandler = (*Fanout)(nil)
)
