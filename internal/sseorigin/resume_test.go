package sseorigin

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// readEvents reads n events' id lines from an event stream.
func readEvents(t *testing.T, r *bufio.Reader, n int) []string {
	t.Helper()
	var ids []string
	for len(ids) < n {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("after %v: %v", ids, err)
		}
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			ids = append(ids, strings.TrimSpace(id))
		}
	}
	return ids
}

// A stream opened with Last-Event-ID gets the kept events after it, then
// live ones, in order.
func TestStreamResumesAfterLastEventID(t *testing.T) {
	o := New()
	srv := httptest.NewServer(o)
	defer srv.Close()
	for range 3 {
		o.Publish("news", "", "old")
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/events/news", nil)
	req.Header.Set("Last-Event-ID", "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	o.Publish("news", "update", "new\nline")
	if got := strings.Join(readEvents(t, bufio.NewReader(resp.Body), 3), ","); got != "2,3,4" {
		t.Fatalf("ids %s, want 2,3,4", got)
	}
	if o.Open() != 1 || o.Opened() != 1 {
		t.Errorf("open %d, opened %d, want 1 and 1", o.Open(), o.Opened())
	}
}

func TestFormatSplitsDataLines(t *testing.T) {
	got := string(Format(Event{ID: "7", Name: "update", Data: "a\nb"}))
	if want := "id: 7\nevent: update\ndata: a\ndata: b\n\n"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}
