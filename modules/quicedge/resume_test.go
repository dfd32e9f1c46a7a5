package quicedge_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go/http3"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// Careful Resume end to end: a client's first connection finds nothing
// saved for its address and leaves its path's values when it ends; its
// second connection starts from them, and so does a third after a config
// reload.
func TestCarefulResumeRemembersTheClientsPath(t *testing.T) {
	s := testcaddy.NewSite(t)
	dir := t.TempDir()
	// Bigger than an initial window, so the connection measures the path.
	if err := os.WriteFile(filepath.Join(dir, "page"), []byte(strings.Repeat("x", 300<<10)), 0o644); err != nil {
		t.Fatal(err)
	}
	config := siteConfig(s, "root * "+dir+"\n\tfile_server")
	testcaddy.Run(t, config)
	const (
		noRecord = `lastmile_quic_careful_resume_connections_total{outcome="no_record"}`
		open     = `lastmile_quic_connections_open`
	)
	// The path memory is the process's: earlier tests' clients on
	// 127.0.0.1 are in it, so this client comes from an address of its own.
	client := fmt.Sprintf("127.%d.%d.%d", 1+rand.IntN(254), rand.IntN(256), 1+rand.IntN(254))
	load := func() {
		t.Helper()
		c := s.H3ClientFrom(t, client)
		if body := get(t, c, s.URL("/page")); len(body) != 300<<10 {
			t.Fatalf("got %d bytes", len(body))
		}
		c.Transport.(*http3.Transport).Close()
		// The edge saves the path when the connection has ended.
		testcaddy.Eventually(t, 10*time.Second, "the connection to end at the edge", func() bool {
			return s.Metric(t, open) == 0
		})
	}
	before := s.Metric(t, noRecord)
	load()
	if got := s.Metric(t, noRecord) - before; got != 1 {
		t.Fatalf("first connection: no_record grew by %v, want 1", got)
	}
	load()
	if got := s.Metric(t, noRecord) - before; got != 1 {
		t.Fatalf("second connection from the same address: no_record grew by %v in all, want 1 (the first's): nothing was saved", got)
	}
	testcaddy.Run(t, config)
	load()
	if got := s.Metric(t, noRecord) - before; got != 1 {
		t.Fatalf("connection after a reload: no_record grew by %v in all, want 1 (the first's): the reload forgot the path", got)
	}
}

// careful_resume off: nothing is remembered, so no connection is counted.
func TestCarefulResumeOff(t *testing.T) {
	s := testcaddy.NewSite(t)
	testcaddy.Run(t, strings.Replace(siteConfig(s, `respond "hello"`), "grace_period 1s", "grace_period 1s\n\t\tcareful_resume off", 1))
	const noRecord = `lastmile_quic_careful_resume_connections_total{outcome="no_record"}`
	before := s.Metric(t, noRecord)
	get(t, s.H3Client(t, nil), s.URL("/"))
	if got := s.Metric(t, noRecord) - before; got != 0 {
		t.Fatalf("no_record grew by %v with careful_resume off, want 0", got)
	}
}
