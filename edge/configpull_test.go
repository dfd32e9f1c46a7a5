package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// A node pulls its config from a config server with Caddy's HTTP config
// loader (admin.config.load, module http) every load_delay, and applies
// a changed config without a push (docs/FLEET.md).
func TestConfigPulledFromServer(t *testing.T) {
	sitePort, adminPort := testcaddy.FreePort(t), testcaddy.FreePort(t)
	var version atomic.Int64
	version.Store(1)
	var pulls atomic.Int64
	var srvURL string
	// Each served config holds the loader again, so the node keeps pulling.
	config := func() string {
		return fmt.Sprintf(`{
	"admin": {"listen": "127.0.0.1:%s", "config": {"load": {"module": "http", "url": %q}, "load_delay": "100ms"}},
	"apps": {"http": {"servers": {"edge": {"listen": ["127.0.0.1:%s"], "automatic_https": {"disable": true},
		"routes": [{"handle": [{"handler": "static_response", "body": "config v%d"}]}]}}}}
}`, adminPort, srvURL, sitePort, version.Load())
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pulls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, config())
	}))
	t.Cleanup(srv.Close)
	srvURL = srv.URL + "/lastmile.json"

	// The node starts with nothing but the loader, as from a bootstrap file.
	boot := fmt.Sprintf(`{"admin": {"listen": "127.0.0.1:%s", "config": {"load": {"module": "http", "url": %q}, "load_delay": "100ms"}}}`,
		adminPort, srvURL)
	if err := caddy.Load([]byte(boot), true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })

	body := func() string {
		resp, err := http.Get("http://127.0.0.1:" + sitePort + "/")
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	waitForWithin(t, 10*time.Second, func() bool { return body() == "config v1" })
	// An unchanged config is pulled again and again, not applied again.
	seen := pulls.Load()
	waitForWithin(t, 10*time.Second, func() bool { return pulls.Load() >= seen+3 })
	version.Store(2)
	start := time.Now()
	waitForWithin(t, 10*time.Second, func() bool { return body() == "config v2" })
	t.Logf("config v2 applied %v after the server changed (load_delay 100ms), %d pulls", time.Since(start), pulls.Load())
}
