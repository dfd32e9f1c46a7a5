package wtfanout

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"time"
)

// sseEvent is one event of a text/event-stream, as the WHATWG HTML
// standard's "event stream interpretation" dispatches it.
type sseEvent struct {
	ID    string // the event's own id field; see HasID
	HasID bool   // the event block set an id (else ID is empty)
	Event string // the event field, empty when none was sent
	Data  string // the data lines joined by "\n"
	// TooLarge marks an event whose data or one of whose lines exceeded
	// the parser's bounds: its content was not kept.
	TooLarge bool
}

// sseParser reads events from an event stream with bounded memory: a
// line longer than maxLine and data beyond maxEvent are not kept (the
// event is dispatched with TooLarge set).
type sseParser struct {
	r                 *bufio.Reader
	maxLine, maxEvent int

	line    []byte
	started bool // the BOM, if any, has been skipped
	skipLF  bool // the last line ended in CR: a following LF ends nothing

	data     []byte
	event    string
	id       string
	hasID    bool
	tooLarge bool

	// LastID is the last event ID buffer, which persists across events
	// and is sent as Last-Event-ID when reconnecting.
	LastID string
	// Retry is the reconnection time the stream asked for, 0 if none.
	Retry time.Duration
}

func newSSEParser(r io.Reader, maxLine, maxEvent int, lastID string) *sseParser {
	return &sseParser{r: bufio.NewReaderSize(r, 4096), maxLine: maxLine, maxEvent: maxEvent, LastID: lastID}
}

var bom = []byte("\xef\xbb\xbf")

// Next returns the next dispatched event. An error ends the stream; an
// event not yet ended by a blank line is discarded, as the standard says.
func (p *sseParser) Next() (sseEvent, error) {
	for {
		line, long, err := p.readLine()
		if err != nil {
			return sseEvent{}, err
		}
		if !p.started {
			p.started = true
			line = bytes.TrimPrefix(line, bom)
		}
		switch {
		case long:
			// A cut line's field cannot be trusted: the event is lost.
			p.tooLarge = true
		case len(line) == 0:
			if ev, ok := p.dispatch(); ok {
				return ev, nil
			}
		case line[0] == ':': // comment, typically a keep-alive
		default:
			p.field(line)
		}
	}
}

// readLine reads up to CR, LF or CRLF; long reports a line cut at maxLine.
func (p *sseParser) readLine() (line []byte, long bool, err error) {
	p.line = p.line[:0]
	for {
		b, err := p.r.ReadByte()
		if err != nil {
			return nil, false, err
		}
		if p.skipLF {
			p.skipLF = false
			if b == '\n' {
				continue
			}
		}
		switch b {
		case '\n':
			return p.line, long, nil
		case '\r':
			p.skipLF = true
			return p.line, long, nil
		}
		if len(p.line) < p.maxLine {
			p.line = append(p.line, b)
		} else {
			long = true
		}
	}
}

func (p *sseParser) field(line []byte) {
	name, value, found := bytes.Cut(line, []byte(":"))
	if found && len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	switch string(name) {
	case "event":
		p.event = string(value)
	case "data":
		if len(p.data)+len(value)+1 > p.maxEvent {
			p.tooLarge = true
			return
		}
		p.data = append(append(p.data, value...), '\n')
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			p.id, p.hasID, p.LastID = string(value), true, string(value)
		}
	case "retry":
		if ms, err := strconv.ParseUint(string(value), 10, 32); err == nil && isDigits(value) {
			p.Retry = time.Duration(ms) * time.Millisecond
		}
	}
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// dispatch ends the event block at a blank line; ok is false when there
// is nothing to dispatch (no data field).
func (p *sseParser) dispatch() (ev sseEvent, ok bool) {
	defer func() {
		p.data, p.event, p.id, p.hasID, p.tooLarge = p.data[:0], "", "", false, false
	}()
	switch {
	case p.tooLarge:
		return sseEvent{ID: p.id, HasID: p.hasID, TooLarge: true}, true
	case len(p.data) == 0:
		return sseEvent{}, false
	}
	return sseEvent{ID: p.id, HasID: p.hasID, Event: p.event, Data: string(p.data[:len(p.data)-1])}, true
}
