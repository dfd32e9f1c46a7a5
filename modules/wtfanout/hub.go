package wtfanout

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/lastmile-edge/lastmile/modules/wtproxy"
)

// hubs holds one hub per hub settings, shared by every config that names
// the same upstream the same way: a reload that keeps the settings keeps
// the hub, its upstream subscriptions and its replay buffers.
var hubs = caddy.NewUsagePool()

// hubSettings are what a hub's channels behave by; their JSON is the
// hub's key. A reload that changes any of them starts a new hub.
type hubSettings struct {
	Upstream     string
	TLS          *wtproxy.UpstreamTLS
	Headers      http.Header
	Replay       int
	MaxEventSize int
	BackoffMin   time.Duration
	BackoffMax   time.Duration
	Linger       time.Duration
	DialTimeout  time.Duration
}

func (s hubSettings) key() string {
	b, _ := json.Marshal(s)
	return string(b)
}

// hub keeps one upstream subscription per channel with subscribers.
type hub struct {
	set    hubSettings
	client *http.Client
	logger *zap.Logger

	mu       sync.Mutex
	channels map[string]*channel
	unknown  map[string]time.Time // channels the origin said it does not have, until when
	closed   bool
}

// errUnknownChannel is the origin's 404 or 410 for a channel, remembered
// for unknownFor so that a client cannot make the edge ask again and again.
var errUnknownChannel = errors.New("the origin has no such channel")

const (
	unknownFor     = 10 * time.Second
	maxUnknownKept = 4096
)

// errHubClosed: no config uses the hub any more.
var errHubClosed = errors.New("the fan-out is no longer configured")

func newHub(set hubSettings, logger *zap.Logger) (*hub, error) {
	u, err := url.Parse(strings.ReplaceAll(set.Upstream, channelPlaceholder, "c"))
	if err != nil {
		return nil, err
	}
	tlsConf, err := set.TLS.ClientConfig(u.Hostname(), "h2", "http/1.1")
	if err != nil {
		return nil, err
	}
	tr := &http.Transport{
		TLSClientConfig:       tlsConf,
		ForceAttemptHTTP2:     true,
		DialContext:           (&net.Dialer{Timeout: set.DialTimeout, KeepAlive: 15 * time.Second}).DialContext,
		TLSHandshakeTimeout:   set.DialTimeout,
		ResponseHeaderTimeout: set.DialTimeout,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       30 * time.Second,
	}
	return &hub{
		set: set, client: &http.Client{Transport: tr}, logger: logger,
		channels: make(map[string]*channel), unknown: make(map[string]time.Time),
	}, nil
}

// subscribe adds sub to the channel, starting the channel's upstream
// subscription if it has none, and queues the replay: the kept events
// after lastEventID, or all kept when it is empty or no longer kept.
func (h *hub) subscribe(name string, sub *subscriber, lastEventID string) (*channel, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, errHubClosed
	}
	if until, ok := h.unknown[name]; ok {
		if time.Now().Before(until) {
			return nil, errUnknownChannel
		}
		delete(h.unknown, name)
	}
	ch := h.channels[name]
	if ch == nil {
		ch = newChannel(h, name)
		h.channels[name] = ch
		go ch.run()
	}
	ch.add(sub, lastEventID)
	return ch, nil
}

// remove forgets a channel that stopped; unknown remembers the origin's
// answer for a while.
func (h *hub) remove(ch *channel, unknown bool) {
	if h.channels[ch.name] == ch {
		delete(h.channels, ch.name)
	}
	if !unknown {
		return
	}
	if len(h.unknown) >= maxUnknownKept {
		now := time.Now()
		for name, until := range h.unknown {
			if now.After(until) {
				delete(h.unknown, name)
			}
		}
		if len(h.unknown) >= maxUnknownKept {
			clear(h.unknown)
		}
	}
	h.unknown[ch.name] = time.Now().Add(unknownFor)
}

// Destruct runs when no config uses the hub: its channels stop and their
// subscribers are told the channel failed, so clients reconnect to what
// the new config serves, whose channels resume where these stopped.
func (h *hub) Destruct() error {
	h.mu.Lock()
	h.closed = true
	chans := make([]*channel, 0, len(h.channels))
	for _, ch := range h.channels {
		chans = append(chans, ch)
	}
	h.mu.Unlock()
	for _, ch := range chans {
		ch.stop("", true)
	}
	h.client.CloseIdleConnections()
	return nil
}
