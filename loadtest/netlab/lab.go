//go:build linux

package netlab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Lab is a set of network namespaces joined by emulated links, and the
// processes running in them. Close tears all of it down.
type Lab struct {
	prefix string
	ctx    context.Context // canceled by Close: ends commands run by Output
	cancel context.CancelFunc
	mu     sync.Mutex
	nss    []string
	links  []*Link
	procs  []*exec.Cmd
	dirs   []string // MkdirTemp's, removed by Close
	closed bool
}

// Requirements says why this machine cannot run the lab, or nil.
func Requirements() error {
	if os.Geteuid() != 0 {
		return errors.New("the network lab needs root (network namespaces and TUN devices)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return errors.New("the network lab needs the ip command (iproute2)")
	}
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		return errors.New("the network lab needs /dev/net/tun")
	}
	return nil
}

// NewLab starts an empty lab; its namespaces are named with a prefix
// unique to this process.
func NewLab() (*Lab, error) {
	if err := Requirements(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Lab{prefix: fmt.Sprintf("lmlab%d-", os.Getpid()), ctx: ctx, cancel: cancel}, nil
}

// NS returns the full name of the lab's namespace short.
func (l *Lab) NS(short string) string { return l.prefix + short }

// AddNS creates a namespace with loopback up and TCP buffers large enough
// for a long fat path (a 1 Gbit/s x 100 ms product is 12.5 MB).
func (l *Lab) AddNS(short string) error {
	ns := l.NS(short)
	if err := run("ip", "netns", "add", ns); err != nil {
		return err
	}
	l.mu.Lock()
	l.nss = append(l.nss, ns)
	l.mu.Unlock()
	cmds := [][]string{
		{"ip", "-n", ns, "link", "set", "lo", "up"},
		{"ip", "netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv4.tcp_rmem=4096 131072 33554432"},
		{"ip", "netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv4.tcp_wmem=4096 131072 33554432"},
		{"ip", "netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv4.tcp_no_metrics_save=1"},
	}
	for _, c := range cmds {
		if err := run(c[0], c[1:]...); err != nil {
			return err
		}
	}
	return nil
}

// Link is an emulated point-to-point link between two namespaces.
type Link struct {
	AddrA, AddrB string
	stages       []Impairment // what each direction's packets pass
	AtoB, BtoA   LinkStats
	tunA, tunB   *os.File
	stop         chan struct{}
	wg           sync.WaitGroup
}

// Connect joins namespaces a and b (short names) with a link whose
// packets pass the stages in order, in each direction (each direction has
// its own state). It returns the link; a's address is AddrA, b's AddrB.
func (l *Lab) Connect(a, b string, stages ...Impairment) (*Link, error) {
	l.mu.Lock()
	idx := len(l.links) + 1
	l.mu.Unlock()
	lk := &Link{AddrA: fmt.Sprintf("198.18.%d.1", idx), AddrB: fmt.Sprintf("198.18.%d.2", idx), stages: stages, stop: make(chan struct{})}
	devA, devB := fmt.Sprintf("lab%d%s", idx, "a"), fmt.Sprintf("lab%d%s", idx, "b")
	var err error
	if lk.tunA, err = openTUN(l.NS(a), devA); err != nil {
		return nil, err
	}
	if lk.tunB, err = openTUN(l.NS(b), devB); err != nil {
		lk.tunA.Close()
		return nil, err
	}
	l.mu.Lock()
	l.links = append(l.links, lk)
	l.mu.Unlock()
	// Benchmarking addresses (RFC 2544, 198.18.0.0/15): they exist only
	// inside the lab's namespaces.
	for _, c := range [][]string{
		{"ip", "-n", l.NS(a), "addr", "add", lk.AddrA + "/30", "dev", devA},
		{"ip", "-n", l.NS(b), "addr", "add", lk.AddrB + "/30", "dev", devB},
		{"ip", "-n", l.NS(a), "link", "set", devA, "up", "mtu", "1500", "txqueuelen", "10000"},
		{"ip", "-n", l.NS(b), "link", "set", devB, "up", "mtu", "1500", "txqueuelen", "10000"},
	} {
		if err := run(c[0], c[1:]...); err != nil {
			return nil, err
		}
	}
	seed := uint64(time.Now().UnixNano())
	ab := newDirection(stages, seed, writer(lk.tunB), &lk.AtoB)
	ba := newDirection(stages, seed+1, writer(lk.tunA), &lk.BtoA)
	for _, d := range []struct {
		in  *os.File
		dir *direction
	}{{lk.tunA, ab}, {lk.tunB, ba}} {
		lk.wg.Add(2)
		go func() { defer lk.wg.Done(); d.dir.run(lk.stop) }()
		go func() { defer lk.wg.Done(); forward(d.in, d.dir) }()
	}
	return lk, nil
}

func writer(f *os.File) func([]byte) error {
	return func(p []byte) error {
		_, err := f.Write(p)
		return err
	}
}

// forward reads packets until the device is closed.
func forward(in *os.File, d *direction) {
	buf := make([]byte, 65536)
	for {
		n, err := in.Read(buf)
		if err != nil {
			return
		}
		d.push(append([]byte(nil), buf[:n]...), time.Now())
	}
}

func (lk *Link) close() {
	close(lk.stop)
	lk.tunA.Close()
	lk.tunB.Close()
	lk.wg.Wait()
}

// Start runs a command inside namespace short; Close kills it.
func (l *Lab) Start(short string, env []string, name string, args ...string) (*exec.Cmd, error) {
	cmd := exec.Command("ip", append([]string{"netns", "exec", l.NS(short), name}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.procs = append(l.procs, cmd)
	l.mu.Unlock()
	return cmd, nil
}

// MkdirTemp makes a directory for a process of the lab (its config, its
// state) that Close removes after the processes are gone.
func (l *Lab) MkdirTemp(pattern string) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", err
	}
	l.mu.Lock()
	l.dirs = append(l.dirs, dir)
	l.mu.Unlock()
	return dir, nil
}

// Output runs a command inside namespace short and returns its standard
// output.
func (l *Lab) Output(short string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(l.ctx, "ip", append([]string{"netns", "exec", l.NS(short), name}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%s %s in %s: %w: %s", name, strings.Join(args, " "), short, err, stderr.String())
	}
	return out, nil
}

// Close kills the lab's processes, stops its links, removes its
// MkdirTemp directories and deletes its namespaces (their TUN devices go
// with them). It is safe to call twice.
func (l *Lab) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	l.cancel()
	for _, p := range l.procs {
		if p.Process != nil {
			_ = syscall.Kill(-p.Process.Pid, syscall.SIGKILL)
			_ = p.Process.Kill()
			_, _ = p.Process.Wait()
		}
	}
	for _, lk := range l.links {
		lk.close()
	}
	var errs []error
	for _, dir := range l.dirs {
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
		}
	}
	for _, ns := range l.nss {
		if err := run("ip", "netns", "del", ns); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Leftovers lists the namespaces left of the labs process pid made, for
// the check that nothing is left behind; by pid, so labs that other
// processes run meanwhile are not counted.
func Leftovers(pid int) ([]string, error) {
	prefix := fmt.Sprintf("lmlab%d-", pid)
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return nil, err
	}
	var left []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], prefix) {
			left = append(left, "namespace "+f[0])
		}
	}
	return left, nil
}

func run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
