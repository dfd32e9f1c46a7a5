package wtfanout

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func parseAll(t testing.TB, r io.Reader, maxLine, maxEvent int) ([]sseEvent, *sseParser) {
	t.Helper()
	p := newSSEParser(r, maxLine, maxEvent, "")
	var evs []sseEvent
	for {
		ev, err := p.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			return evs, p
		}
		evs = append(evs, ev)
	}
}

// The standard's parsing rules: BOM, CR/LF/CRLF, comments, multi-line
// data, id persistence, retry, fields without a colon, unfinished event.
func TestSSEParser(t *testing.T) {
	in := "\xef\xbb\xbfdata: a\r\ndata:b\rdata\n\n" + // BOM; CRLF, CR, LF; "data" alone adds an empty line
		": keep-alive\n" +
		"id: 7\nevent: update\ndata:  two spaces\n\n" +
		"data: no id of its own\n\n" +
		"id: bad\x00id\nretry: 1500\nretry: 2s\ndata: x\n\n" +
		"event: empty\n\n" + // no data: nothing dispatched
		"id\ndata: cleared id\n\n" +
		"data: unfinished"
	evs, p := parseAll(t, strings.NewReader(in), 1024, 1024)
	want := []sseEvent{
		{Data: "a\nb\n"},
		{ID: "7", HasID: true, Event: "update", Data: " two spaces"},
		{Data: "no id of its own"},
		{Data: "x"},
		{ID: "", HasID: true, Data: "cleared id"},
	}
	if !reflect.DeepEqual(evs, want) {
		t.Fatalf("got %+v\nwant %+v", evs, want)
	}
	if p.Retry != 1500*time.Millisecond || p.LastID != "" {
		t.Fatalf("retry %v, last id %q", p.Retry, p.LastID)
	}
}

// Events and lines over the bounds are dropped, marked, and cost no more
// memory than the bounds.
func TestSSEParserBounds(t *testing.T) {
	in := "id: 1\ndata: " + strings.Repeat("x", 100) + "\n\n" + // line too long
		"id: 2\n" + strings.Repeat("data: 0123456789\n", 10) + "\n" + // event too large
		"data: fits\n\n"
	evs, p := parseAll(t, strings.NewReader(in), 64, 64)
	if len(evs) != 3 || !evs[0].TooLarge || !evs[1].TooLarge || evs[1].ID != "2" || evs[2].Data != "fits" {
		t.Fatalf("got %+v", evs)
	}
	if cap(p.line) > 64 || cap(p.data) > 128 {
		t.Fatalf("buffers grew to %d, %d", cap(p.line), cap(p.data))
	}
}

// FuzzSSEParser: any input parses without panic within the bounds, the
// same whether it arrives at once or byte by byte (CR at the end of one
// read and LF at the start of the next), and what the edge re-encodes
// for its own SSE clients parses back to the same event.
func FuzzSSEParser(f *testing.F) {
	for _, seed := range []string{
		"data: a\n\n", "id: 1\r\nevent: e\r\ndata: x\r\ndata: y\r\n\r\n", "\xef\xbb\xbfdata\r\r", ":c\nretry: 10\ndata: z\n\n",
		"data: " + strings.Repeat("y", 300) + "\n\n",
	} {
		f.Add([]byte(seed))
	}
	const maxLine, maxEvent = 128, 256
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, _ := parseAll(t, strings.NewReader(string(in)), maxLine, maxEvent)
		bytewise, _ := parseAll(t, iotest.OneByteReader(strings.NewReader(string(in))), maxLine, maxEvent)
		if !reflect.DeepEqual(whole, bytewise) {
			t.Fatalf("whole %+v\nbyte by byte %+v", whole, bytewise)
		}
		for _, ev := range whole {
			if len(ev.Data) > maxEvent || len(ev.ID) > maxLine || len(ev.Event) > maxLine {
				t.Fatalf("event over the bounds: %d %d %d", len(ev.Data), len(ev.ID), len(ev.Event))
			}
			if ev.TooLarge || strings.ContainsAny(ev.ID+ev.Event, "\r\n") {
				continue
			}
			back, _ := parseAll(t, strings.NewReader(string(encodeSSE(ev))), 1<<20, 1<<20)
			if ev.Data == "" && len(back) == 1 && back[0].Data == "" {
				back[0] = ev // "data: " alone round-trips as empty data
			}
			if len(back) != 1 || back[0].Data != ev.Data || back[0].ID != ev.ID || back[0].Event != ev.Event {
				t.Fatalf("%+v re-encoded as %q parses as %+v", ev, encodeSSE(ev), back)
			}
		}
	})
}
