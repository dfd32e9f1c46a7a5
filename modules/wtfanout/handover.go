package wtfanout

import (
	"sync"
	"time"
)

// A reload that changes a fan-out's settings starts a new hub while the
// old one still runs, and destroys the old one afterwards. A channel of
// the new hub must pick the origin's stream up where the old hub was, or
// subscribers moving across lose events (asking without Last-Event-ID)
// or get them twice (an origin that then sends its whole log). So a new
// channel starts from a resume point: the last event id, replay buffer
// and dedupe window of the same upstream channel in another hub that
// still runs, else of one a destroyed hub left behind lately.
//
// An upstream channel is its URL: event ids are the origin's, and the
// same URL is the same event stream whatever headers or TLS settings
// reach it.

// handoverFor is how long a destroyed hub's resume points are kept:
// subscribers told "failed" come back within the clients' backoff
// (seconds; web-client's first retries are under 2s), and an origin keeps
// a resumable history for about as long.
const handoverFor = time.Minute

// resumePoint is where a channel is in its upstream stream.
type resumePoint struct {
	lastID  string   // the stream's last event id, sent as Last-Event-ID
	kept    []*event // the replay buffer, oldest first
	seenIDs []string // the dedupe window, oldest first
}

var handover = struct {
	mu   sync.Mutex
	live map[string]map[*channel]struct{} // running channels by upstream URL
	left map[string]leftPoint             // destroyed hubs' channels by upstream URL
}{live: map[string]map[*channel]struct{}{}, left: map[string]leftPoint{}}

type leftPoint struct {
	resumePoint
	until time.Time
}

// registerLive makes c's position available to channels of other hubs.
func registerLive(c *channel) {
	handover.mu.Lock()
	defer handover.mu.Unlock()
	set := handover.live[c.upstream]
	if set == nil {
		set = map[*channel]struct{}{}
		handover.live[c.upstream] = set
	}
	set[c] = struct{}{}
}

// unregisterLive forgets c; a channel its hub's Destruct stops leaves its
// resume point for handoverFor.
func unregisterLive(c *channel, left *resumePoint, now time.Time) {
	handover.mu.Lock()
	defer handover.mu.Unlock()
	if set := handover.live[c.upstream]; set != nil {
		delete(set, c)
		if len(set) == 0 {
			delete(handover.live, c.upstream)
		}
	}
	for url, p := range handover.left {
		if now.After(p.until) {
			delete(handover.left, url)
		}
	}
	if left != nil {
		handover.left[c.upstream] = leftPoint{*left, now.Add(handoverFor)}
	}
}

// resumeFor is where a new channel of hub h on upstream starts: a running
// channel of another hub, else what a destroyed hub left lately, else
// nowhere (the zero resumePoint).
func resumeFor(h *hub, upstream string, now time.Time) resumePoint {
	handover.mu.Lock()
	var others []*channel
	for c := range handover.live[upstream] {
		if c.hub != h {
			others = append(others, c)
		}
	}
	left, hasLeft := handover.left[upstream]
	handover.mu.Unlock()
	// The lock is not held while a channel's is taken: a stopping channel
	// takes handover's under its own.
	for _, c := range others {
		if p, ok := c.position(); ok {
			return p
		}
	}
	if hasLeft && !now.After(left.until) {
		return left.resumePoint
	}
	return resumePoint{}
}

// position is c's resume point, false once c stopped.
func (c *channel) position() (resumePoint, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return resumePoint{}, false
	}
	return c.positionLocked(), true
}

func (c *channel) positionLocked() resumePoint {
	return resumePoint{lastID: c.lastID, kept: c.kept, seenIDs: c.seenIDs}
}

// resumeFrom starts c, not yet running, at p, keeping as much of p's
// replay buffer as c's hub replays.
func (c *channel) resumeFrom(p resumePoint) {
	c.lastID = p.lastID
	n := min(len(p.kept), c.hub.set.Replay)
	c.kept = append([]*event(nil), p.kept[len(p.kept)-n:]...)
	for _, id := range p.seenIDs {
		c.remember(id)
	}
}
