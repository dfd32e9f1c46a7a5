package cdnloop

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// startNode runs one node whose cdn_loop hands requests to a handler that
// echoes the CDN-Loop lines it received.
func startNode(t *testing.T, directive string) string {
	t.Helper()
	port := testcaddy.FreePort(t)
	testcaddy.Run(t, fmt.Sprintf(`{
	admin off
	auto_https off
}
http://127.0.0.1:%s {
	%s
	respond "{header.CDN-Loop}"
}`, port, directive))
	return "http://127.0.0.1:" + port
}

func get(t *testing.T, url string, loop ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for _, l := range loop {
		req.Header.Add("CDN-Loop", l)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// A request is marked as having passed this node, after what others wrote
// (the placeholder joins the lines with commas).
func TestMarksRequest(t *testing.T) {
	base := startNode(t, "cdn_loop edge-1")
	if code, body := get(t, base+"/"); code != 200 || body != "lastmile; node=edge-1" {
		t.Fatalf("%d %q", code, body)
	}
	code, body := get(t, base+"/", "other-cdn", "lastmile; node=shield-1")
	if code != 200 || body != "other-cdn,lastmile; node=shield-1,lastmile; node=edge-1" {
		t.Fatalf("%d %q", code, body)
	}
}

// A request that already passed this node is refused with 508 before
// anything behind the handler sees it.
func TestRefusesLoop(t *testing.T) {
	base := startNode(t, "cdn_loop edge-1 {\n\t\tcdn_id cdn.example.net\n\t}")
	code, body := get(t, base+"/", "CDN.example.net; node=shield-1, cdn.example.net; node=edge-1")
	if code != http.StatusLoopDetected || strings.Contains(body, "node") {
		t.Fatalf("looped: %d %q", code, body)
	}
	// The same node name under another CDN's id is not this node.
	if code, _ := get(t, base+"/", "lastmile; node=edge-1"); code != 200 {
		t.Fatalf("another CDN's node: %d", code)
	}
}

func TestValidate(t *testing.T) {
	testcaddy.RefuseAll(t, []testcaddy.Invalid{
		{"no node", testcaddy.HTTPHandlerConfig(t, `{"handler": "cdn_loop"}`), "node is required"},
		{"node not a token", testcaddy.HTTPHandlerConfig(t, `{"handler": "cdn_loop", "node": "a;b"}`), "want a token"},
		{"bad cdn_id", testcaddy.HTTPHandlerConfig(t, `{"handler": "cdn_loop", "node": "a", "cdn_id": "x y"}`), "cdn_id"},
	})
}
