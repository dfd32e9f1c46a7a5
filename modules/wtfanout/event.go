package wtfanout

import (
	"encoding/json"
	"strings"
	"time"
)

// event is one event of a channel, encoded once for every transport so
// that thousands of subscribers share the bytes.
type event struct {
	id       string
	hasID    bool
	received time.Time // when the edge read it from the origin

	line     []byte // a line of the subscription's stream
	datagram []byte // a datagram, with the channel's name
	sse      []byte // an event of the edge's own event stream
}

// wireEvent is an event's JSON on WebTransport.
type wireEvent struct {
	Channel string `json:"channel,omitempty"`
	ID      string `json:"id,omitempty"`
	Event   string `json:"event,omitempty"`
	Data    string `json:"data"`
}

func newEvent(channel string, ev sseEvent, received time.Time) *event {
	w := wireEvent{ID: ev.ID, Event: ev.Event, Data: ev.Data}
	line, _ := json.Marshal(w)
	w.Channel = channel
	dgram, _ := json.Marshal(w)
	return &event{
		id: ev.ID, hasID: ev.HasID, received: received,
		line: append(line, '\n'), datagram: dgram, sse: encodeSSE(ev),
	}
}

// encodeSSE writes ev as an event-stream event; every line of its data
// becomes a data field, so the browser's EventSource sees ev.Data again.
func encodeSSE(ev sseEvent) []byte {
	var b strings.Builder
	if ev.HasID {
		b.WriteString("id: " + ev.ID + "\n")
	}
	if ev.Event != "" {
		b.WriteString("event: " + ev.Event + "\n")
	}
	for line := range strings.SplitSeq(ev.Data, "\n") {
		b.WriteString("data: " + line + "\n")
	}
	b.WriteString("\n")
	return []byte(b.String())
}
