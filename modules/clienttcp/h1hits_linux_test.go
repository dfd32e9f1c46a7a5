package clienttcp

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/requestmetric"
	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// writingHugeHit sends a hit on the huge body, and pipelined behind it, on
// a connection whose hits are answered below net/http, and returns once
// the hit is answered so, its write stalled by the unread connection; and
// the hits answered below net/http and requests counted since it sent.
func writingHugeHit(t *testing.T, answering, pipelined string) (c net.Conn, br *bufio.Reader, answered, counted func() float64) {
	t.Helper()
	warm, wbr := dialAnswered(t, answering, false)
	testcaddy.Eventually(t, 10*time.Second, "the huge body stored", func() bool {
		return strings.HasPrefix(roundTrip(t, warm, wbr, "/huge").Header.Get("Cache-Status"), "lastmile; hit")
	})
	c, br = dialAnswered(t, answering, true)
	answered, counted = countedSince(t, answeredHits), countedSince(t, requestmetric.HTTP1)
	if _, err := io.WriteString(c, "GET /huge HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"+pipelined); err != nil {
		t.Fatal(err)
	}
	testcaddy.Eventually(t, 10*time.Second, "the huge hit answered below net/http", func() bool { return answered() == 1 })
	return c, br, answered, counted
}

// A reload while client_tcp writes a response net/http never saw (larger
// than the sockets' buffers, to a client that reads only after the reload)
// neither cuts the response nor drops the connection: net/http's Shutdown
// closes the connection as idle, the close waits for the write, and the
// connection then moves to the new config.
func TestReloadDuringAnAnsweredWrite(t *testing.T) {
	answering, _, reload := hitsEdge(t)
	c, br, _, _ := writingHugeHit(t, answering, "")
	reload()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || n != hugeBody {
		t.Fatalf("read %d of %d bytes: %v", n, hugeBody, err)
	}
	// The old server is gone: the new one answers on the same connection.
	if resp := roundTrip(t, c, br, "/plain"); resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("after the reload: %s, Connection: close %v", resp.Status, resp.Close)
	}
}

// Requests a client pipelined behind a hit answered below net/http, when a
// reload comes during its write, are the new config's to serve, and are
// followed as it reads them: each counted once, as a request net/http
// read, and a partial one completed by what the client sends next.
func TestReloadDuringAnAnsweredWriteKeepsThePipelined(t *testing.T) {
	answering, _, reload := hitsEdge(t)
	c, br, answered, counted := writingHugeHit(t, answering, "GET /plain HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"+"GET /gone HTTP/1.1\r\nHo")
	reload()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	read := func(want int) {
		t.Helper()
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != want {
			t.Fatalf("%s, want %d: %v", resp.Status, want, err)
		}
	}
	read(http.StatusOK) // /huge
	read(http.StatusOK) // /plain
	if _, err := io.WriteString(c, "st: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	read(http.StatusGone)
	if n := counted(); n != 3 {
		t.Fatalf("%v requests counted, want 3", n)
	}
	for tries := 0; answered() == 1; tries++ {
		if tries == 100 {
			t.Fatal("after the reload, no hit answered below net/http in 100")
		}
		roundTrip(t, c, br, "/plain")
	}
}
