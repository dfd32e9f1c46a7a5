//go:build linux

package netlab

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func requireLab(t *testing.T) {
	t.Helper()
	if err := Requirements(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI runs as root with iproute2: %v", err)
		}
		t.Skip(err)
	}
}

// newLabAB starts a lab with namespaces a and b, closed when the test ends
// (Close is safe to call again).
func newLabAB(t *testing.T) *Lab {
	t.Helper()
	requireLab(t)
	lab, err := NewLab()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lab.Close() })
	for _, ns := range []string{"a", "b"} {
		if err := lab.AddNS(ns); err != nil {
			t.Fatal(err)
		}
	}
	return lab
}

// A lab passes packets between its namespaces, and Close leaves no
// namespace, TUN device or process behind.
func TestLabLeavesNothingBehind(t *testing.T) {
	lab := newLabAB(t)
	lk, err := lab.Connect("a", "b", Impairment{Delay: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	sleeper, err := lab.Start("b", nil, "sleep", "600")
	if err != nil {
		t.Fatal(err)
	}
	scratch, err := lab.MkdirTemp("netlab-test")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(scratch, "Caddyfile"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The link carries traffic: a TCP connect across it (bash's /dev/tcp
	// to a port nobody listens on is refused, which proves the round trip).
	_, _ = lab.Output("a", "bash", "-c", "exec 3<>/dev/tcp/"+lk.AddrB+"/9 && echo open || true")
	if lk.AtoB.Out.Load() == 0 || lk.BtoA.Out.Load() == 0 {
		t.Fatalf("no packets crossed the link: %d out, %d back", lk.AtoB.Out.Load(), lk.BtoA.Out.Load())
	}
	if err := lab.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := Leftovers(os.Getpid()); len(left) > 0 {
		t.Fatalf("left behind: %v", left)
	}
	if err := syscall.Kill(sleeper.Process.Pid, 0); err == nil {
		t.Fatal("the lab's process still runs")
	}
	if _, err := os.Stat(scratch); !os.IsNotExist(err) {
		t.Fatalf("the lab's directory %s is left: %v", scratch, err)
	}
	links, _ := exec.Command("ip", "-o", "link").Output()
	if strings.Contains(string(links), "lab1a") || strings.Contains(string(links), "lab1b") {
		t.Fatal("a TUN device is left in the root namespace")
	}
}

// Ctrl-C in the middle of an experiment tears the lab down too.
func TestLabCommandCleansUpOnInterrupt(t *testing.T) {
	requireLab(t)
	bin := filepath.Join(t.TempDir(), "netlab")
	build := exec.Command("go", "build", "-o", bin, "../cmd/netlab")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "cc", "-seconds", "30", "-out", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the experiment is under way (its lab built, its sender
	// running in it), then interrupt.
	running := func() bool {
		left, _ := Leftovers(cmd.Process.Pid)
		out, _ := exec.Command("pgrep", "-f", bin+" tcp-send").Output()
		return len(left) > 0 && len(out) > 0
	}
	deadline := time.Now().Add(30 * time.Second)
	for !running() {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the experiment never got under way")
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the experiment did not stop on interrupt")
	}
	if left, _ := Leftovers(cmd.Process.Pid); len(left) > 0 {
		t.Fatalf("left behind after Ctrl-C: %v", left)
	}
	if out, _ := exec.Command("pgrep", "-f", bin+" tcp-").Output(); len(out) > 0 {
		t.Fatalf("helper processes left: %s", out)
	}
}
