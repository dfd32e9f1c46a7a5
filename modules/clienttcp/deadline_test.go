package clienttcp

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	_ "github.com/lastmile-edge/lastmile/modules/httpcache"
)

// readTimedOut fails unless err is what net's Read returns past its
// deadline, which net/http tells apart from a client that went away.
func readTimedOut(t *testing.T, err error) {
	t.Helper()
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read error %v, want a timeout wrapping os.ErrDeadlineExceeded", err)
	}
}

// A read deadline the owner sets between Reads reaches the socket when the
// next Read starts; one set while a Read waits ends that Read; one already
// past fails the Read, as net's does; none lets it wait for the client.
func TestReadDeadlinesAsTheSocketWouldApplyThem(t *testing.T) {
	server, client := acceptedPair(t, &ListenerWrapper{}, bare)
	buf := make([]byte, 64)

	start := time.Now()
	if err := server.SetReadDeadline(start.Add(200 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	_, err := readWithin(t, server, buf)
	readTimedOut(t, err)
	if waited := time.Since(start); waited < 200*time.Millisecond {
		t.Fatalf("a Read with a deadline 200 ms ahead returned after %v", waited)
	}

	// net/http's abort of its background read: a time long ago.
	if err := server.SetReadDeadline(time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(client, "GET"); err != nil {
		t.Fatal(err)
	}
	_, err = readWithin(t, server, buf)
	readTimedOut(t, err)

	// Cleared: the client's bytes are read, and the next Read waits
	// until a deadline set while it waits ends it.
	if err := server.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	if n, err := readWithin(t, server, buf); err != nil || string(buf[:n]) != "GET" {
		t.Fatalf("read %q, %v; want the client's GET", buf[:n], err)
	}
	c := server.(*conn)
	done := make(chan error, 1)
	go func() {
		_, err := server.Read(buf)
		done <- err
	}()
	testcaddy.Eventually(t, 5*time.Second, "the Read waits on the socket", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.reading
	})
	if err := server.SetReadDeadline(time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		readTimedOut(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("a deadline set while a Read waited did not end it")
	}
}

// readWithin is c.Read(buf), failing the test if it has not returned
// within 5 s (the connection's cleanup then ends it).
func readWithin(t *testing.T, c net.Conn, buf []byte) (int, error) {
	t.Helper()
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := c.Read(buf)
		done <- result{n, err}
	}()
	select {
	case r := <-done:
		return r.n, r.err
	case <-time.After(5 * time.Second):
		t.Fatal("Read did not return within 5 s")
		return 0, nil
	}
}

// runTimeoutsServer runs a wrapped HTTP/1.1 server with short idle and
// header timeouts.
func runTimeoutsServer(t *testing.T) string {
	port := testcaddy.FreePort(t)
	testcaddy.Run(t, `{
	admin off
	servers {
		timeouts {
			idle 300ms
			read_header 300ms
		}
		listener_wrappers {
			client_tcp
		}
	}
}
http://127.0.0.1:`+port+` {
	respond "ok"
}
`)
	return "127.0.0.1:" + port
}

// dial connects to addr, closing the connection when the test ends.
func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

// roundTrip sends a GET of path on c and reads its response, br reading c.
func roundTrip(t *testing.T, c net.Conn, br *bufio.Reader, path string) *http.Response {
	t.Helper()
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// closedWithin reads from c until the server closes it, and returns how
// long that took; it fails if the server has not closed it within 5 s.
func closedWithin(t *testing.T, c net.Conn, br *bufio.Reader) time.Duration {
	t.Helper()
	start := time.Now()
	_ = c.SetReadDeadline(start.Add(5 * time.Second))
	if _, err := io.Copy(io.Discard, br); err != nil {
		t.Fatalf("the server did not close the connection: %v", err)
	}
	return time.Since(start)
}

// Caddy's idle timeout still closes a kept connection through client_tcp,
// which gives the socket its read deadlines only when a Read starts.
func TestIdleTimeoutClosesThroughTheWrapper(t *testing.T) {
	c, br := dial(t, runTimeoutsServer(t))
	for range 2 { // the second after a whole request's deadlines
		roundTrip(t, c, br, "/")
	}
	if took := closedWithin(t, c, br); took < 250*time.Millisecond {
		t.Fatalf("closed %v after the response, before the idle timeout (300 ms)", took)
	}
}

// Caddy's read_header timeout still ends a request head that does not
// come (a slow client holding the connection) through client_tcp: the
// deadline net/http sets once the head's first bytes arrived reaches the
// socket with the Read for the rest.
func TestHeaderTimeoutEndsASlowHeadThroughTheWrapper(t *testing.T) {
	c, br := dial(t, runTimeoutsServer(t))
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"); err != nil {
		t.Fatal(err)
	}
	if took := closedWithin(t, c, br); took < 250*time.Millisecond {
		t.Fatalf("closed %v after the head began, before read_header (300 ms)", took)
	}
}

// A cache miss whose client goes away cancels its origin request: net/http
// learns it from its background read, which client_tcp lets wait on the
// socket without a deadline. The connection first serves a hit, so the
// miss comes after a whole request's deadlines, the background read's end
// included.
func TestMissWhoseClientLeavesCancelsItsOriginRequest(t *testing.T) {
	started, cancelled := make(chan struct{}, 1), make(chan struct{}, 1)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		if r.URL.Path != "/slow" {
			_, _ = io.WriteString(w, "stored")
			return
		}
		started <- struct{}{}
		select {
		case <-r.Context().Done():
			cancelled <- struct{}{}
		case <-time.After(10 * time.Second):
		}
	}))
	defer origin.Close()
	port := testcaddy.FreePort(t)
	testcaddy.Run(t, `{
	admin off
	servers {
		listener_wrappers {
			client_tcp
		}
	}
}
http://127.0.0.1:`+port+` {
	edge_cache {
		name clienttcp-cancel
	}
	reverse_proxy `+strings.TrimPrefix(origin.URL, "http://")+`
}
`)
	c, br := dial(t, "127.0.0.1:"+port)
	roundTrip(t, c, br, "/fast")
	if cs := roundTrip(t, c, br, "/fast").Header.Get("Cache-Status"); !strings.Contains(cs, "hit") {
		t.Fatalf("second request's Cache-Status %q, want a hit", cs)
	}
	if _, err := io.WriteString(c, "GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the miss did not reach the origin")
	}
	c.Close()
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the origin request was not cancelled when the client went away")
	}
}
