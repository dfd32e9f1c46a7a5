package main

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	"github.com/lastmile-edge/lastmile/modules/originlink"
)

// The demo edge reaches its origin over the warm origin_link pool: the
// links are open before the first request and carry it.
func TestDemoUsesWarmOriginLinks(t *testing.T) {
	e := startEdge(t)
	views := func() []originlink.OriginView {
		resp, err := http.Get("http://" + e.AdminAddr + "/lastmile/origins")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v []originlink.OriginView
		if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	// The pool dials after Caddy's started event: wait for its links.
	var v []originlink.OriginView
	testcaddy.Eventually(t, 10*time.Second, "the warm pool's 4 links before any request", func() bool {
		v = views()
		return len(v) == 1 && len(v[0].Links) == 4
	})
	if v[0].Origin != e.Origin.Addr || v[0].Protocol != "h2c" {
		t.Fatalf("before any request: %+v", v)
	}
	dials := v[0].Dials
	resp, _ := get(t, e.tcpClient(t, false), e.URL("/echo"))
	if resp.StatusCode != 200 {
		t.Fatal(resp.Status)
	}
	if v = views(); v[0].Dials != dials {
		t.Fatalf("the first request dialled: %d -> %d", dials, v[0].Dials)
	}
}
