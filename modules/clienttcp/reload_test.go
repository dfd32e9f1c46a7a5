package clienttcp

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/requestmetric"
	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// A kept HTTP/1.1 connection outlives a reload: its next request is
// answered by the new config, on the same connection, which stays open.
func TestIdleConnectionMovesToTheNewConfig(t *testing.T) {
	port := testcaddy.FreePort(t)
	config := func(body string) string {
		return `{
	admin off
	servers {
		listener_wrappers {
			client_tcp
		}
	}
}
http://127.0.0.1:` + port + ` {
	respond "` + body + `"
}
`
	}
	testcaddy.Run(t, config("config A"))
	h1 := countedSince(t, requestmetric.HTTP1)
	c, err := net.Dial("tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	get := func() (string, bool) {
		t.Helper()
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("reading the response: %v", err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		return string(body), resp.Close
	}
	if body, _ := get(); body != "config A" {
		t.Fatalf("before the reload: %q", body)
	}
	moved := handedOver(t)
	testcaddy.Run(t, config("config B"))
	body, closing := get()
	if body != "config B" || closing {
		t.Fatalf("after the reload, on the kept connection: %q (Connection: close %v), want config B, kept", body, closing)
	}
	if got := handedOver(t) - moved; got != 1 {
		t.Fatalf("handed_over grew by %v, want 1", got)
	}
	// The count goes on across the hand-over, once per request.
	if got := h1(); got != 2 {
		t.Fatalf("h1 requests grew by %v, want 2", got)
	}
}

func handedOver(t *testing.T) float64 {
	t.Helper()
	return counterValue(t, metrics.reloaded.WithLabelValues("handed_over"))
}

// sharedAddr is a listener that says it listens on addr: a new config's
// listener on the same socket, as a reload opens it.
type sharedAddr struct {
	net.Listener
	addr net.Addr
}

func (s sharedAddr) Addr() net.Addr { return s.addr }

// reloadPair is a config's listener with one HTTP/1.1 connection whose
// first request its server has answered, and the listener of the config
// replacing it; the test plays the server, reporting states by hand.
func reloadPair(t *testing.T) (old *conn, client net.Conn, next *listener) {
	t.Helper()
	lw := new(ListenerWrapper)
	accepted(t, lw, bare) // provisions lw
	ln := must(net.Listen("tcp", "127.0.0.1:0"))
	l := lw.WrapListener(ln).(*listener)
	t.Cleanup(func() { l.Close() })
	client = must(net.Dial("tcp", ln.Addr().String()))
	t.Cleanup(func() { client.Close() })
	old = must(l.Accept()).(*conn)
	old.setState("old server", http.StateNew)
	if _, err := io.WriteString(client, "GET /first HTTP/1.1\r\nHost: a\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 64)
	if _, err := old.Read(head); err != nil {
		t.Fatal(err)
	}
	old.setState("old server", http.StateActive)
	if _, err := io.WriteString(old, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	next = newListener(sharedAddr{must(net.Listen("tcp", "127.0.0.1:0")), ln.Addr()}, lw)
	t.Cleanup(func() { next.Close() })
	return old, client, next
}

// net/http marks a connection idle after its response and then reports
// it; a Shutdown closing idle connections in between overtakes the
// report. The connection still moves to the new config once the report
// comes, with the next request the client sent meanwhile.
func TestCloseOvertakingTheIdleReportStillHandsOver(t *testing.T) {
	old, client, next := reloadPair(t)
	closed := make(chan error)
	go func() { closed <- old.Close() }()
	testcaddy.Eventually(t, 10*time.Second, "Close waiting for the report", func() bool {
		old.mu.Lock()
		defer old.mu.Unlock()
		return old.reported != nil
	})
	const second = "GET /second HTTP/1.1\r\nHost: a\r\n\r\n"
	if _, err := io.WriteString(client, second); err != nil {
		t.Fatal(err)
	}
	old.setState("old server", http.StateIdle)
	moved := must(next.Accept())
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(second))
	if _, err := io.ReadFull(moved, got); err != nil || string(got) != second {
		t.Fatalf("the new server read %q, %v; want the second request", got, err)
	}
}

// A close with no idle report coming (the server closes after answering
// with Connection: close) closes the connection, after the bounded wait.
func TestCloseWithoutIdleReportCloses(t *testing.T) {
	old, client, _ := reloadPair(t)
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(client)
	if _, err := http.ReadResponse(br, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("after the answered request: %v, want EOF", err)
	}
}
