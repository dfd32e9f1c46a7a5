package quicedge_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// heldOrigin answers each request once the test releases it.
func heldOrigin(t *testing.T) (addr string, arrived <-chan struct{}, release chan<- struct{}) {
	t.Helper()
	in, out := make(chan struct{}, 8), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in <- struct{}{}
		select {
		case <-out:
			io.WriteString(w, "finished")
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), in, out
}

// On shutdown, a request in flight finishes within the grace period, and
// shutdown waits for it.
func TestShutdownWaitsForRequestsInFlight(t *testing.T) {
	s := testcaddy.NewSite(t)
	origin, arrived, release := heldOrigin(t)
	testcaddy.Run(t, siteConfig(s, "reverse_proxy "+origin))
	c := s.H3Client(t, nil)
	got := make(chan string, 1)
	go func() {
		resp, err := c.Get(s.URL("/"))
		if err != nil {
			got <- err.Error()
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- string(body)
	}()
	<-arrived
	stopped := make(chan error, 1)
	go func() { stopped <- caddy.Stop() }()
	// Shutdown holds while the request is in flight (what is checked is
	// that nothing happens, so the check takes a while).
	select {
	case err := <-stopped:
		t.Fatalf("shutdown returned (%v) with a request in flight", err)
	case body := <-got:
		t.Fatalf("the request ended (%q) before it was released", body)
	case <-time.After(300 * time.Millisecond):
	}
	release <- struct{}{}
	if body := <-got; body != "finished" {
		t.Fatalf("request in flight across shutdown: %q", body)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
}

// A request that outlasts the grace period is cut off when it ends: the
// shutdown takes the grace period, not the request's time.
func TestShutdownEndsAfterTheGracePeriod(t *testing.T) {
	s := testcaddy.NewSite(t)
	origin, arrived, _ := heldOrigin(t)
	testcaddy.Run(t, siteConfig(s, "reverse_proxy "+origin))
	c := s.H3Client(t, nil)
	failed := make(chan error, 1)
	go func() {
		resp, err := c.Get(s.URL("/"))
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		failed <- err
	}()
	<-arrived
	start := time.Now()
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < time.Second || d > 5*time.Second {
		t.Fatalf("shutdown took %v with a 1s grace period", d)
	}
	if err := <-failed; err == nil {
		t.Fatal("the held request succeeded after its connection was closed")
	}
}
