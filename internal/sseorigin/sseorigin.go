// Package sseorigin is a site's live-update origin as the edge's `session
// fanout` subscribes to it: channels served as Server-Sent Events under
// /events/{channel}, with numbered event ids and a resume after
// Last-Event-ID. Tests, the k6 scenarios and the fan-out benchmark run it.
package sseorigin

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// kept is how many recent events a channel keeps for a reconnect's
// Last-Event-ID: the edge reconnects within seconds.
const kept = 256

// streamQueue bounds what one stream may fall behind before the origin
// drops it (the edge then reconnects and resumes).
const streamQueue = 1024

// Event is one event of a channel.
type Event struct {
	ID, Name, Data string
}

// Origin serves the channels. The zero value is not usable: use New.
type Origin struct {
	mu       sync.Mutex
	channels map[string]*channel
	open     atomic.Int64 // streams open now
	opened   atomic.Int64 // streams ever opened
}

type channel struct {
	next int
	kept []Event
	subs map[chan Event]struct{}
}

func New() *Origin { return &Origin{channels: map[string]*channel{}} }

func (o *Origin) channel(name string) *channel {
	c := o.channels[name]
	if c == nil {
		c = &channel{subs: map[chan Event]struct{}{}}
		o.channels[name] = c
	}
	return c
}

// Publish sends an event to every stream of the channel, numbering it.
func (o *Origin) Publish(name, event, data string) Event {
	o.mu.Lock()
	defer o.mu.Unlock()
	c := o.channel(name)
	c.next++
	e := Event{ID: strconv.Itoa(c.next), Name: event, Data: data}
	c.kept = append(c.kept, e)
	if len(c.kept) > kept {
		c.kept = c.kept[len(c.kept)-kept:]
	}
	for sub := range c.subs {
		select {
		case sub <- e:
		default: // too far behind: the stream ends, the client resumes
			delete(c.subs, sub)
			close(sub)
		}
	}
	return e
}

// Open is the number of event streams open now; Opened, ever.
func (o *Origin) Open() int64   { return o.open.Load() }
func (o *Origin) Opened() int64 { return o.opened.Load() }

// ServeHTTP streams /events/{channel}: the kept events after Last-Event-ID
// (none without it, or when that id is no longer kept), then each one
// published, until the client leaves.
func (o *Origin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name, ok := strings.CutPrefix(r.URL.Path, "/events/")
	if !ok || name == "" || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	o.opened.Add(1)
	o.open.Add(1)
	defer o.open.Add(-1)
	sub := make(chan Event, streamQueue)
	o.mu.Lock()
	c := o.channel(name)
	var replay []Event
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		for i, e := range c.kept {
			if e.ID == last {
				replay = append(replay, c.kept[i+1:]...)
				break
			}
		}
	}
	c.subs[sub] = struct{}{}
	o.mu.Unlock()
	defer func() {
		o.mu.Lock()
		delete(c.subs, sub)
		o.mu.Unlock()
	}()

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(e Event) bool {
		if _, err := w.Write(Format(e)); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if rc.Flush() != nil {
		return
	}
	for _, e := range replay {
		if !send(e) {
			return
		}
	}
	for {
		select {
		case e, ok := <-sub:
			if !ok || !send(e) {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

// Format is an event in the text/event-stream format, its data split into
// one data: line per line.
func Format(e Event) []byte {
	var b strings.Builder
	if e.ID != "" {
		fmt.Fprintf(&b, "id: %s\n", e.ID)
	}
	if e.Name != "" {
		fmt.Fprintf(&b, "event: %s\n", e.Name)
	}
	for _, line := range strings.Split(e.Data, "\n") {
		fmt.Fprintf(&b, "data: %s\n", line)
	}
	b.WriteString("\n")
	return []byte(b.String())
}
