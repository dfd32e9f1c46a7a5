//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// defaultEdgePath is where the lab builds ./edge when -lastmile is not given.
const defaultEdgePath = "loadtest/bin/lastmile"

// edgeBinary is the lastmile binary an experiment runs. A path given with
// -lastmile is run as is, so two builds can be compared; without one, ./edge
// is built (incremental: a second or two when nothing changed), so the lab
// never runs a stale edge by accident.
type edgeBinary struct {
	path  string // as given; empty: build ./edge
	abs   string // what runs
	build string // go version -m of it, for the results
}

func (e *edgeBinary) prepare() error {
	if e.abs != "" {
		return nil
	}
	if e.path == "" {
		e.path = defaultEdgePath
		cmd := exec.Command("go", "build", "-o", e.path, "./edge")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return err
		}
	} else if st, err := os.Stat(e.path); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return fmt.Errorf("-lastmile %s: not an executable file", e.path)
	}
	abs, err := filepath.Abs(e.path)
	if err != nil {
		return err
	}
	out, err := exec.Command("go", "version", "-m", abs).Output()
	if err != nil {
		return fmt.Errorf("go version -m %s: %w", abs, err)
	}
	e.abs, e.build = abs, buildSummary(string(out))
	return nil
}

// buildSummary keeps what tells two edge builds apart: the Go version, the
// main module, quic-go (and its replacement) and the VCS state.
func buildSummary(versionM string) string {
	var b strings.Builder
	for i, line := range strings.Split(versionM, "\n") {
		f := strings.Fields(line)
		keep := i == 0 ||
			len(f) >= 2 && (f[0] == "mod" || f[0] == "=>" ||
				f[0] == "dep" && f[1] == "github.com/quic-go/quic-go" ||
				f[0] == "build" && (strings.HasPrefix(f[1], "vcs.") || strings.HasPrefix(f[1], "-tags")))
		if keep {
			b.WriteString(strings.TrimSpace(line) + "\n")
		}
	}
	return b.String()
}
