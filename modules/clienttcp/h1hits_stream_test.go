package clienttcp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// pipelinedHits are requests a client pipelines, hits of hitsEdge's site
// (GET, HEAD, conditional, one with a large body) and a miss among them.
var pipelinedHits = "GET /plain HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" +
	"HEAD /plain HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" +
	"GET /nostore HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" +
	"GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\n\r\n" +
	"GET /plain HTTP/1.1\r\nHost: 127.0.0.1\r\nIf-None-Match: \"v1\"\r\n\r\n" +
	"GET /gone HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

// exchangeSplit is exchange with raw sent in two parts, split at split;
// if await, the responses to the requests complete in the first part
// (GET and HEAD heads alone) are read before the second is sent, so the
// server meets the first part's tail (a partial request, or nothing)
// alone. It returns all the server sent until it closed or deadline
// passed, and how it ended.
func exchangeSplit(t *testing.T, addr, raw string, split int, answers, await bool, deadline time.Duration) string {
	t.Helper()
	c, dbr := dialAnswered(t, addr, answers)
	if !answers {
		// As dialAnswered's hits on a server that answers them: a /plain
		// that raw's unsafe methods invalidated is stored again.
		roundTrip(t, c, dbr, "/plain")
	}
	_ = c.SetDeadline(time.Now().Add(deadline))
	var got bytes.Buffer
	br := bufio.NewReader(io.TeeReader(c, &got))
	if _, err := io.WriteString(c, raw[:split]); err != nil {
		t.Fatal(err)
	}
	var err error
	if await {
		err = readResponses(br, raw[:split])
	}
	if err == nil {
		if _, err = io.WriteString(c, raw[split:]+closing); err == nil {
			_, err = io.Copy(io.Discard, br)
		}
	}
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return got.String() + "\n(timeout)"
	case err != nil:
		return got.String() + "\n(error)"
	}
	return got.String()
}

// readResponses reads the responses to the GET and HEAD requests complete
// in raw (heads without bodies, as pipelinedHits's).
func readResponses(br *bufio.Reader, raw string) error {
	for {
		end := bytes.Index([]byte(raw), []byte("\r\n\r\n"))
		if end < 0 {
			return nil
		}
		head := raw[:end]
		raw = raw[end+4:]
		skip := bytes.HasPrefix([]byte(head), []byte("HEAD "))
		if err := readResponse(br, skip); err != nil {
			return err
		}
	}
}

// readResponse reads one response's head, and its body by Content-Length
// unless headOnly.
func readResponse(br *bufio.Reader, headOnly bool) error {
	length := 0
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return err
		}
		if line == "\r\n" {
			break
		}
		if n, ok := bytes.CutPrefix([]byte(line), []byte("Content-Length: ")); ok {
			for _, d := range bytes.TrimSpace(n) {
				length = length*10 + int(d-'0')
			}
		}
	}
	if headOnly {
		return nil
	}
	_, err := io.CopyN(io.Discard, br, int64(length))
	return err
}

// warmPipelined waits until each of addrs answers pipelinedHits's hits
// from its store.
func warmPipelined(t *testing.T, addrs ...string) {
	for _, addr := range addrs {
		testcaddy.Eventually(t, 10*time.Second, "the pipelined requests' hits", func() bool {
			got := exchangeSplit(t, addr, pipelinedHits, len(pipelinedHits), false, true, 10*time.Second)
			return bytes.Count([]byte(got), []byte("Cache-Status: lastmile; hit")) == 5
		})
	}
}

// Pipelined requests split between two TCP segments at every byte get the
// same responses, in the same order, from a server that answers hits
// below net/http as from one that does not, whichever part the split
// leaves partial when client_tcp looks.
func TestAnsweredHitsSplitAnywhere(t *testing.T) {
	answering, through, _ := hitsEdge(t)
	warmPipelined(t, answering, through)
	answered := countedSince(t, answeredHits)
	for split := 1; split <= len(pipelinedHits); split++ {
		got := exchangeSplit(t, answering, pipelinedHits, split, true, true, 10*time.Second)
		want := exchangeSplit(t, through, pipelinedHits, split, false, true, 10*time.Second)
		if normalize(got) != normalize(want) {
			t.Fatalf("split at %d (%q|%q):\nanswered:\n%s\nnet/http:\n%s",
				split, pipelinedHits[:split], pipelinedHits[split:], got, want)
		}
	}
	// dialAnswered's one hit answered below net/http a connection aside.
	pipelined := answered() - float64(len(pipelinedHits))
	if pipelined <= 0 {
		t.Fatal("no pipelined hit answered below net/http")
	}
	t.Logf("%v pipelined hits answered below net/http", pipelined)
}

// Any bytes a client sends, in two parts, get the same responses from a
// server that answers hits below net/http as from one that does not.
func FuzzAnsweredStream(f *testing.F) {
	for _, s := range append(parseSeeds, pipelinedHits, pipelinedHits+"GET /plain HTTP/1.1\r\nHo",
		"POST /plain HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 41\r\n\r\n"+pipelinedHits) {
		f.Add([]byte(s), uint16(len(s)/2))
	}
	answering, through, _ := hitsEdge(f)
	var warm sync.Once
	f.Fuzz(func(t *testing.T, data []byte, split uint16) {
		if len(data) > 8<<10 {
			return
		}
		warm.Do(func() { warmPipelined(t, answering, through) })
		raw := string(data)
		at := int(split) % (len(raw) + 1)
		// Once on each first: the two share the store.
		exchangeSplit(t, answering, raw, at, false, false, 2*time.Second)
		exchangeSplit(t, through, raw, at, false, false, 2*time.Second)
		got := normalize(exchangeSplit(t, answering, raw, at, true, false, 2*time.Second))
		want := normalize(exchangeSplit(t, through, raw, at, false, false, 2*time.Second))
		if reset := "\n(error)"; strings.HasSuffix(got, reset) || strings.HasSuffix(want, reset) {
			// A server that closes on bytes it did not read resets the
			// connection, which may cut short what the client reads.
			got, want = strings.TrimSuffix(got, reset), strings.TrimSuffix(want, reset)
			n := min(len(got), len(want))
			got, want = got[:n], want[:n]
		}
		if got != want {
			t.Fatalf("%q | %q:\nanswered:\n%s\nnet/http:\n%s", raw[:at], raw[at:], got, want)
		}
	})
}

// A connection that goes back and forth between hits answered below
// net/http and requests net/http answers, one at a time and in pipelined
// bursts of thousands written while the client reads, gets every response
// in order, and hits are answered below net/http on it again after them.
func TestAnsweredAndNetHTTPAlternate(t *testing.T) {
	answering, through, _ := hitsEdge(t)
	warmPipelined(t, answering, through)
	c, br := dialAnswered(t, answering, true)
	_ = c.SetDeadline(time.Now().Add(60 * time.Second))
	requests := []struct{ raw, body string }{
		{"GET /gone HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "gone"},
		{"GET /nostore HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "fresh each time"},
		{"POST /nostore HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\n\r\nbody", "fresh each time"},
		{"GET /untyped HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "<html><body>hi</body></html>"},
	}
	expect := func(body string) {
		t.Helper()
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(got) != body {
			t.Fatalf("%q (%v), want %q", got, err, body)
		}
	}
	answered := countedSince(t, answeredHits)
	for i := range 200 {
		r := requests[i*7%len(requests)]
		if _, err := io.WriteString(c, r.raw); err != nil {
			t.Fatal(err)
		}
		expect(r.body)
	}
	one := answered()
	if one == 0 {
		t.Fatal("no hit answered below net/http one at a time")
	}
	// Bursts, written while the responses are read: mixed, then hits
	// alone.
	const burst = 4000
	for _, step := range []int{7, 4} {
		before := answered()
		var sent bytes.Buffer
		for i := range burst {
			sent.WriteString(requests[i*step%len(requests)].raw)
		}
		written := make(chan error, 1)
		go func() {
			_, err := c.Write(sent.Bytes())
			written <- err
		}()
		for i := range burst {
			expect(requests[i*step%len(requests)].body)
		}
		if err := <-written; err != nil {
			t.Fatal(err)
		}
		// A burst may start behind net/http's background read and stay
		// net/http's to its end (net/http is never at rest while the
		// next request is already buffered): how many are answered
		// depends on scheduling, so it is only logged.
		t.Logf("%v of a burst of %d answered below net/http", answered()-before, burst)
	}
	// After the bursts the connection is answered below net/http again.
	before := answered()
	for range 200 {
		if _, err := io.WriteString(c, requests[0].raw); err != nil {
			t.Fatal(err)
		}
		expect(requests[0].body)
	}
	if answered() == before {
		t.Fatal("no hit answered below net/http one at a time after the bursts")
	}
	t.Logf("%v answered below net/http one at a time, %v after the bursts", one, answered()-before)
}

// Many connections answered below net/http at once each get their own
// responses: the state pooled between them (request, header map, response
// buffer) carries nothing from one to another.
func TestAnsweredHitsOnManyConnections(t *testing.T) {
	answering, through, _ := hitsEdge(t)
	warmPipelined(t, answering, through)
	paths := []struct{ path, body string }{{"/gone", "gone"}, {"/untyped", "<html><body>hi</body></html>"}, {"/nostore", "fresh each time"}}
	answered := countedSince(t, answeredHits)
	const conns, each = 16, 100
	errs := make(chan error, conns)
	for g := range conns {
		c, br := dialAnswered(t, answering, true)
		go func() {
			for i := range each {
				p := paths[(g+i)%len(paths)]
				if _, err := io.WriteString(c, "GET "+p.path+" HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Conn: "+string(rune('a'+g))+"\r\n\r\n"); err != nil {
					errs <- err
					return
				}
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					errs <- err
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || string(body) != p.body {
					errs <- fmt.Errorf("connection %d, %s: %q (%v)", g, p.path, body, err)
					return
				}
			}
			errs <- nil
		}()
	}
	for range conns {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// dialAnswered's one a connection aside.
	if n := answered() - conns; n <= 0 {
		t.Fatal("no hit answered below net/http on the connections at once")
	}
}
