package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
)

// runAsLastmileEnv makes the test binary act as the lastmile binary, so
// `lastmile demo --fleet` can start its edges from it.
const runAsLastmileEnv = "LASTMILE_TEST_RUN_AS_LASTMILE"

func TestMain(m *testing.M) {
	if os.Getenv(runAsLastmileEnv) == "1" {
		caddycmd.Main()
		return
	}
	os.Exit(m.Run())
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// `lastmile demo --fleet 3` starts three edges and prints a purge command
// that every edge acknowledges.
func TestFleetDemo(t *testing.T) {
	t.Setenv(runAsLastmileEnv, "1")
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	errc := make(chan error, 1)
	go func() { errc <- fleetDemo(ctx, 3, out) }()
	defer func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("demo: %v", err)
		}
	}()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(out.String(), "Ctrl-C stops") {
		select {
		case err := <-errc:
			t.Fatalf("demo ended: %v\n%s", err, out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("demo did not start:\n%s", out.String())
		}
	}
	m := regexp.MustCompile(`Bearer (\w+)' -d '(.*)' (http://\S+)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no purge command in:\n%s", out.String())
	}
	req, _ := http.NewRequest(http.MethodPost, m[3], strings.NewReader(m[2]))
	req.Header.Set("Authorization", "Bearer "+m[1])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || strings.Count(string(body), `"node":"edge`) != 3 {
		t.Fatalf("the printed purge: %d %s", resp.StatusCode, body)
	}
}
