//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A binary given with -lastmile is used as is, never rebuilt over, and
// one that cannot run is refused before any lab starts.
func TestEdgeBinaryGivenIsUsedAsIs(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "lastmile")
	if err := os.WriteFile(notExec, []byte("not a program"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := edgeBinary{path: notExec}
	if err := e.prepare(); err == nil || !strings.Contains(err.Error(), "not an executable") {
		t.Fatalf("prepare of a non-executable file: %v", err)
	}
	if b, _ := os.ReadFile(notExec); string(b) != "not a program" {
		t.Fatal("the given file was overwritten")
	}
	self, err := os.Executable() // a Go binary: go version -m reads it
	if err != nil {
		t.Fatal(err)
	}
	e = edgeBinary{path: self}
	if err := e.prepare(); err != nil {
		t.Fatal(err)
	}
	if e.abs != self || !strings.Contains(e.build, "go1.") {
		t.Fatalf("abs %q, build %q", e.abs, e.build)
	}
}

func TestBuildSummaryKeepsWhatTellsBuildsApart(t *testing.T) {
	in := `/tmp/lastmile: go1.26.8
	path	github.com/lastmile-edge/lastmile/edge
	mod	github.com/lastmile-edge/lastmile	(devel)
	dep	github.com/caddyserver/caddy/v2	v2.11.9	h1:x
	dep	github.com/quic-go/quic-go	v0.63.0
	=>	./third_party/quic-go	(devel)
	build	-compiler=gc
	build	vcs.revision=abc123
	build	vcs.modified=true
`
	got := buildSummary(in)
	for _, want := range []string{"go1.26.8", "mod\tgithub.com/lastmile-edge/lastmile", "quic-go\tv0.63.0", "=>\t./third_party/quic-go", "vcs.revision=abc123", "vcs.modified=true"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"caddy/v2", "-compiler"} {
		if strings.Contains(got, not) {
			t.Errorf("summary keeps %q:\n%s", not, got)
		}
	}
}
