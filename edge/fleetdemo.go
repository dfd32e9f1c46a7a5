package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/lastmile-edge/lastmile/internal/natsembed"
)

// fleetDemo runs an embedded NATS server, the demo origin and count edges,
// each a `lastmile run` process (Caddy is one per process) on spare ports,
// until ctx ends; out gets the instructions.
func fleetDemo(ctx context.Context, count int, out io.Writer) error {
	if count < 1 || count > 16 {
		return fmt.Errorf("--fleet %d: want 1 to 16 edges", count)
	}
	dir, err := os.MkdirTemp("", "lastmile-fleet-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ns, err := natsembed.Start(filepath.Join(dir, "nats"), 0)
	if err != nil {
		return err
	}
	defer ns.Shutdown()
	origin, err := startOrigin("127.0.0.1:0")
	if err != nil {
		return err
	}
	defer origin.Close()
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	var firstAdmin string
	fmt.Fprintf(out, "lastmile fleet demo: NATS %s, origin http://%s\n", ns.ClientURL(), origin.Addr)
	for i := 1; i <= count; i++ {
		admin, port := sparePort(), sparePort()
		if admin == "" || port == "" {
			return fmt.Errorf("no spare port")
		}
		nodeDir := filepath.Join(dir, "edge"+strconv.Itoa(i))
		cfg := fmt.Sprintf(`{
	admin 127.0.0.1:%s
	persist_config off
	auto_https off
	storage file_system %s
	fleet {
		nats %s
		node edge%d
	}
}
http://:%s {
	edge_cache {
		purge_token %s
	}
	reverse_proxy %s
}
`, admin, filepath.Join(nodeDir, "storage"), ns.ClientURL(), i, port, token, origin.Addr)
		if err = os.MkdirAll(nodeDir, 0o700); err == nil {
			err = os.WriteFile(filepath.Join(nodeDir, "Caddyfile"), []byte(cfg), 0o600)
		}
		if err != nil {
			return err
		}
		cmd := exec.Command(exe, "run", "--adapter", "caddyfile", "--config", filepath.Join(nodeDir, "Caddyfile"))
		cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+nodeDir, "XDG_CONFIG_HOME="+nodeDir)
		cmd.Stdout, cmd.Stderr = nil, nil
		if err := cmd.Start(); err != nil {
			return err
		}
		defer stopProcess(cmd)
		if err := waitServing(ctx, "http://127.0.0.1:"+admin+"/config/"); err != nil {
			return fmt.Errorf("edge %d: %w", i, err)
		}
		fmt.Fprintf(out, "  edge%d  http://127.0.0.1:%s/   admin 127.0.0.1:%s\n", i, port, admin)
		if i == 1 {
			firstAdmin = admin
		}
	}
	fmt.Fprintf(out, `Fetch a page through every edge (the second time from their caches), then purge it on edge1
and wait until all %d edges applied it:
  curl -s -H 'Authorization: Bearer %s' -d '{"prefixes":["http://localhost/"],"wait_for":%d}' http://127.0.0.1:%s/lastmile/cache/purge
The answer lists each edge's acknowledgement; Ctrl-C stops.
`, count, token, count, firstAdmin)
	<-ctx.Done()
	return nil
}

func sparePort() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return ""
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

func waitServing(ctx context.Context, url string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("not serving within 30s")
}

func stopProcess(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}
