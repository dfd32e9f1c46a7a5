package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func withQlog(dir, maxSize string) func(string) string {
	return func(s string) string {
		return strings.Replace(s, "\tquic {\n", "\tquic {\n\t\tqlog_dir "+dir+"\n\t\tqlog_max_size "+maxSize+"\n", 1)
	}
}

// qlogBytes returns the server qlog files in dir and their total size.
func qlogBytes(t *testing.T, dir string) (files []string, total int64) {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, "*_server.sqlog"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range matches {
		fi, err := os.Stat(m)
		if err != nil {
			t.Fatal(err)
		}
		total += fi.Size()
	}
	return matches, total
}

// waitQlog polls dir's server qlog files until done accepts them, and
// fails after 5 s.
func waitQlog(t *testing.T, dir string, done func(files []string, total int64) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		files, total := qlogBytes(t, dir)
		if done(files, total) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("qlog in %s never as wanted: %d bytes in %v", dir, total, files)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// qlog_dir writes each connection's qlog, with the congestion controller's
// metrics, its states and its model (BBR, the default controller).
func TestQlogDirTracesEachConnection(t *testing.T) {
	dir := t.TempDir()
	e := startEdgeWith(t, withQlog(dir, "64MiB"))
	c, tr := e.h3Client(t)
	for i := range 3 {
		get(t, c, e.URL(fmt.Sprintf("/page/%d", i)))
	}
	tr.Close()
	waitQlog(t, dir, func(files []string, _ int64) bool {
		if len(files) != 1 {
			return false
		}
		data, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Contains(data, []byte(`"recovery:metrics_updated"`)) && bytes.Contains(data, []byte(`"congestion_window"`)) &&
			bytes.Contains(data, []byte(`"recovery:congestion_state_updated"`)) && bytes.Contains(data, []byte(`"new":"startup"`)) &&
			bytes.Contains(data, []byte(`"lastmile:congestion_model_updated"`)) && bytes.Contains(data, []byte(`"max_bw"`))
	})
}

// The qlog budget bounds the disk used across connections.
func TestQlogMaxSizeBoundsDisk(t *testing.T) {
	dir := t.TempDir()
	const budget = 16 << 10
	e := startEdgeWith(t, withQlog(dir, "16KiB"))
	for range 5 {
		c, tr := e.h3Client(t)
		for i := range 3 {
			get(t, c, e.URL(fmt.Sprintf("/page/%d", i)))
		}
		tr.Close()
	}
	// Writes reach the files in 4 KiB chunks, each within the budget.
	waitQlog(t, dir, func(files []string, total int64) bool {
		if total > budget {
			t.Fatalf("%d qlog files of %d bytes in all, over the %d budget", len(files), total, budget)
		}
		return total > budget-4096
	})
}
