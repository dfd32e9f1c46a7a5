package wtfanout

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
)

// channelPlaceholder is replaced in the upstream template by the
// path-escaped channel name.
const channelPlaceholder = "{channel}"

// dedupeWindow is how many recent event ids a channel remembers to drop
// events an origin sends again after a reconnect.
const dedupeWindow = 1024

// Channel states, as subscribers are told them.
const (
	stateLive         = "live"
	stateReconnecting = "reconnecting"
	stateFailed       = "failed"
)

// channel is one upstream subscription and its subscribers.
type channel struct {
	hub          *hub
	name         string
	upstream     string // the channel's upstream URL
	ctx          context.Context
	stopUpstream context.CancelFunc

	mu      sync.Mutex
	subs    map[*subscriber]struct{}
	kept    []*event    // the last Replay events, oldest first
	wakes   writerWakes // publish's scratch: the writers one event woke
	seen    map[string]struct{}
	seenIDs []string // seen's ids, oldest first
	lastID  string   // the upstream stream's last event id
	state   string
	linger  *time.Timer
	stopped bool
}

// newChannel makes a channel that starts where the same upstream channel
// is in another hub (see handover.go); run starts it.
func newChannel(h *hub, name string) *channel {
	ctx, cancel := context.WithCancel(context.Background())
	metrics.channels.Inc()
	c := &channel{
		hub: h, name: name, upstream: upstreamURL(h.set.Upstream, name), ctx: ctx, stopUpstream: cancel,
		subs: make(map[*subscriber]struct{}), seen: make(map[string]struct{}),
	}
	c.resumeFrom(resumeFor(h, c.upstream, time.Now()))
	registerLive(c)
	return c
}

// add subscribes sub and queues its replay, under the channel's lock so
// that no live event comes between, or twice.
func (c *channel) add(sub *subscriber, lastEventID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.linger != nil {
		c.linger.Stop()
		c.linger = nil
	}
	replay := c.kept
	if lastEventID != "" {
		for i := len(c.kept) - 1; i >= 0; i-- {
			if c.kept[i].hasID && c.kept[i].id == lastEventID {
				replay = c.kept[i+1:]
				break
			}
		}
	}
	for _, e := range replay {
		sub.offer(e, nil)
	}
	if c.state == stateReconnecting {
		sub.status(c.state)
	}
	c.subs[sub] = struct{}{}
}

// removeSub unsubscribes sub; the last one to leave stops the upstream
// subscription after the linger time.
func (c *channel) removeSub(sub *subscriber) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.subs, sub)
	c.lingerIfIdle()
}

// lingerIfIdle starts the linger timer when the last subscriber left.
func (c *channel) lingerIfIdle() {
	if len(c.subs) == 0 && !c.stopped && c.linger == nil {
		c.linger = time.AfterFunc(c.hub.set.Linger, c.stopIfIdle)
	}
}

func (c *channel) stopIfIdle() {
	c.hub.mu.Lock()
	defer c.hub.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.linger = nil
	if len(c.subs) > 0 || c.stopped {
		return
	}
	c.stopLocked(false, false)
}

// stop ends the channel and its subscriptions with code (see
// subscriber.end); handOver leaves its resume point for a new hub.
func (c *channel) stop(code string, handOver bool) {
	c.hub.mu.Lock()
	defer c.hub.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	for sub := range c.subs {
		sub.end(code)
		metrics.closed.WithLabelValues(endReason(code)).Inc()
	}
	clear(c.subs)
	c.stopLocked(code == codeUnknownChannel, handOver)
}

// stopLocked runs with the hub's and the channel's locks held.
func (c *channel) stopLocked(unknown, handOver bool) {
	c.stopped = true
	c.stopUpstream()
	c.hub.remove(c, unknown)
	var left *resumePoint
	if handOver {
		p := c.positionLocked()
		left = &p
	}
	unregisterLive(c, left, time.Now())
	metrics.channels.Dec()
}

func endReason(code string) string {
	if code == "" {
		return stateFailed
	}
	return code
}

// errStop is the origin's 204: the standard's way to say "do not reconnect".
var errStop = errors.New("the origin asked not to reconnect (204)")

// run keeps the upstream subscription until the channel stops,
// reconnecting with exponential backoff and jitter.
func (c *channel) run() {
	set := c.hub.set
	backoff := set.BackoffMin
	for {
		p, err := c.connect()
		if p != nil {
			backoff = set.BackoffMin
			if p.Retry > 0 {
				backoff = min(max(p.Retry, set.BackoffMin), set.BackoffMax)
			}
		}
		if c.ctx.Err() != nil {
			return
		}
		switch {
		case errors.Is(err, errUnknownChannel):
			c.stop(codeUnknownChannel, false)
			return
		case errors.Is(err, errStop):
			c.stop("", false)
			return
		}
		c.hub.logger.Debug("upstream subscription ended", zap.String("channel", c.name), zap.Error(err))
		c.setState(stateReconnecting)
		metrics.reconnects.Inc()
		// Full jitter over the upper half: many channels that lost the
		// same origin do not come back all at once.
		wait := backoff/2 + rand.N(backoff/2+1)
		select {
		case <-c.ctx.Done():
			return
		case <-time.After(wait):
		}
		backoff = min(backoff*2, set.BackoffMax)
	}
}

// connect reads one upstream response's events into the channel,
// resuming after the channel's last event id; the parser is returned once
// the origin answered with an event stream.
func (c *channel) connect() (*sseParser, error) {
	c.mu.Lock()
	lastID := c.lastID
	c.mu.Unlock()
	req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, c.upstream, nil)
	if err != nil {
		return nil, err
	}
	for name, values := range c.hub.set.Headers {
		req.Header[name] = values
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := c.hub.client.Do(req)
	if err != nil {
		metrics.connects.WithLabelValues("error").Inc()
		return nil, err
	}
	defer resp.Body.Close()
	switch mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		metrics.connects.WithLabelValues("unknown_channel").Inc()
		return nil, errUnknownChannel
	case resp.StatusCode == http.StatusNoContent:
		metrics.connects.WithLabelValues("stopped").Inc()
		return nil, errStop
	case resp.StatusCode != http.StatusOK || mt != "text/event-stream":
		metrics.connects.WithLabelValues("error").Inc()
		return nil, fmt.Errorf("origin answered %d %q, want 200 text/event-stream", resp.StatusCode, mt)
	}
	metrics.connects.WithLabelValues("ok").Inc()
	metrics.upstreams.Inc()
	defer metrics.upstreams.Dec()
	c.setState(stateLive)
	maxEvent := c.hub.set.MaxEventSize
	p := newSSEParser(resp.Body, maxEvent, maxEvent, lastID)
	for {
		ev, err := p.Next()
		if err != nil {
			c.mu.Lock()
			c.lastID = p.LastID
			c.mu.Unlock()
			return p, err
		}
		c.publish(ev, p.LastID, time.Now())
	}
}

// upstreamURL fills the template in with the channel's name.
func upstreamURL(template, channel string) string {
	return strings.ReplaceAll(template, channelPlaceholder, url.PathEscape(channel))
}

func (c *channel) setState(state string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == state {
		return
	}
	first := c.state == ""
	c.state = state
	if first {
		return // subscribers expect a live channel; only changes are news
	}
	for sub := range c.subs {
		sub.status(state)
	}
}

// publish keeps ev and offers it to every subscriber; an event whose id
// was seen lately is one the origin sent again after a reconnect. lastID
// is the stream's last event id once ev was read.
func (c *channel) publish(ev sseEvent, lastID string, received time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastID = lastID
	if ev.TooLarge {
		metrics.dropped.WithLabelValues("too_large").Inc()
		return
	}
	if ev.HasID && ev.ID != "" {
		if _, dup := c.seen[ev.ID]; dup {
			metrics.dropped.WithLabelValues("duplicate").Inc()
			return
		}
		c.remember(ev.ID)
	}
	metrics.received.Inc()
	e := newEvent(c.name, ev, received)
	if c.hub.set.Replay > 0 {
		if len(c.kept) == c.hub.set.Replay {
			c.kept = append(c.kept[:0:0], c.kept[1:]...)
		}
		c.kept = append(c.kept, e)
	}
	wakes := c.wakes[:0]
	for sub := range c.subs {
		if !sub.offer(e, &wakes) {
			delete(c.subs, sub)
			sub.end(codeOverflow)
			metrics.closed.WithLabelValues(codeOverflow).Inc()
		}
	}
	wakes.signal()
	clear(wakes) // no writer kept alive by the scratch
	c.wakes = wakes[:0]
	c.lingerIfIdle()
}

func (c *channel) remember(id string) {
	if len(c.seenIDs) == dedupeWindow {
		delete(c.seen, c.seenIDs[0])
		c.seenIDs = c.seenIDs[1:]
	}
	c.seen[id] = struct{}{}
	c.seenIDs = append(c.seenIDs, id)
}
