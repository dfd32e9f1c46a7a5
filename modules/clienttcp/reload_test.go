package clienttcp

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"

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
