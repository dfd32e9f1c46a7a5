package clienttcp

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// writeIdle is the write_idle_timeout of TestAnsweredWriteDeadlineEnds.
const writeIdle = time.Second

// The write deadline a hit with a large body answered below net/http gets
// (write_idle_timeout, as the fast path gives it) ends with its write, as
// the fast path's does: a response net/http writes later on the connection
// without a deadline of its own (a hit on the fast path, whose small body
// net/http writes after the handler) is written whenever it comes.
func TestAnsweredWriteDeadlineEnds(t *testing.T) {
	origin := hitsOrigin(t, nil)
	port := testcaddy.FreePort(t)
	testcaddy.Run(t, `{
	admin off
	servers {
		protocols h1
		timeouts {
			write_idle `+writeIdle.String()+`
		}
		listener_wrappers {
			client_tcp
		}
	}
}
http://127.0.0.1:`+port+` {
	edge_cache
	reverse_proxy `+origin+`
}
`)
	addr := "127.0.0.1:" + port
	warm, wbr := dialAnswered(t, addr, false)
	testcaddy.Eventually(t, 10*time.Second, "the big body stored", func() bool {
		return strings.HasPrefix(roundTrip(t, warm, wbr, "/big").Header.Get("Cache-Status"), "lastmile; hit")
	})
	c, br := dialAnswered(t, addr, true)
	answered := countedSince(t, answeredHits)
	if roundTrip(t, c, br, "/big"); answered() != 1 {
		t.Fatal("the big hit was not answered below net/http")
	}
	// Past the deadline that hit's write had.
	time.Sleep(writeIdle + writeIdle/2)
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	// A hit client_tcp leaves to net/http (a byte it does not take), which
	// the fast path answers.
	if _, err := io.WriteString(c, "GET /plain HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Obs: \xff\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("the hit net/http answered after the deadline: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || len(body) != 2048 || answered() != 1 {
		t.Fatalf("%d bytes (%v), %v answered below net/http", len(body), err, answered())
	}
}
