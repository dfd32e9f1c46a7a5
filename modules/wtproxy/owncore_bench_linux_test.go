package wtproxy

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/quic-go/webtransport-go"
	"golang.org/x/sys/unix"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	"github.com/lastmile-edge/lastmile/internal/testcert"
)

// BenchmarkStreamThroughputOwnCore is BenchmarkStreamThroughput with the
// CPU split as in a deployment, where the edge's CPU is neither the
// client's nor the origin's: the edge runs in a process of its own,
// pinned to one core (GOMAXPROCS 1), while the client and the upstream
// share another. Both variants cross the same loopback and leave the
// client and the upstream the same core, so edge / direct is what the
// relay costs a stream when the edge is not starved by its neighbours.
// `edge-cores` (of its 1) says whether the edge was the bound. Upload
// sends 8 MiB per operation to the upstream, download reads 8 MiB from it.
func BenchmarkStreamThroughputOwnCore(b *testing.B) {
	cpus := allowedCPUs(b)
	if len(cpus) < 2 {
		b.Skip("needs two CPUs: one for the client and the upstream, one for the edge")
	}
	cert := testcert.Write(b)
	pinThreads(b, []int{cpus[0]})
	b.Cleanup(func() { pinThreads(b, cpus) })
	b.Cleanup(func(procs int) func() { return func() { runtime.GOMAXPROCS(procs) } }(runtime.GOMAXPROCS(1)))

	up := startUpstream(b, cert, nil)
	// An edge process per proxy options variant; direct has none.
	type target struct {
		benchTarget
		edge *edgeProcess
	}
	targets := []target{{benchTarget: directTarget(cert, up.addr)}}
	for _, v := range [][2]string{{"", ""}, {"-buffer-32KiB", "buffer_size 32KiB"}} {
		name := "edge" + v[0]
		proc := startEdgeProcess(b, name, cert, up.addr, v[1], cpus[1])
		targets = append(targets, target{benchTarget{name, func(b *testing.B, ctx context.Context, path string) *webtransport.Session {
			return proc.mustDial(b, ctx, path)
		}}, proc})
	}
	for _, dir := range []struct {
		name, path string
		run        func(*testing.B, *webtransport.Session)
	}{{"upload", "/discard", sendStreams}, {"download", "/source", receiveStreams}} {
		b.Run(dir.name, func(b *testing.B) {
			for _, target := range targets {
				b.Run(target.name, func(b *testing.B) {
					s := target.open(b, context.Background(), dir.path)
					var edgeStart time.Duration
					if target.edge != nil {
						edgeStart = target.edge.cpu(b)
					}
					cpuStart, wallStart := processCPU(b), time.Now()
					dir.run(b, s)
					wall := time.Since(wallStart)
					reportCPU(b, processCPU(b)-cpuStart, wall, "")
					if target.edge != nil {
						reportCPU(b, target.edge.cpu(b)-edgeStart, wall, "edge-")
					}
				})
			}
		})
	}
}

// edgeProcessEnv carries the Caddyfile of an edge process: the test
// binary started with it runs that edge (TestMain) instead of the tests.
const edgeProcessEnv = "LASTMILE_WTPROXY_EDGE_PROCESS"

// edgeProcessCPUEnv is the CPU the edge process pins itself to.
const edgeProcessCPUEnv = "LASTMILE_WTPROXY_EDGE_CPU"

// edgeProcessProfileEnv is the file the edge process writes its CPU
// profile to: the benchmark's -test.cpuprofile with the edge's name
// appended, since the parent's profile does not see the edge's work.
const edgeProcessProfileEnv = "LASTMILE_WTPROXY_EDGE_CPUPROFILE"

func TestMain(m *testing.M) {
	if config := os.Getenv(edgeProcessEnv); config != "" {
		if err := runEdgeProcess(config, os.Getenv(edgeProcessCPUEnv), os.Getenv(edgeProcessProfileEnv)); err != nil {
			fmt.Fprintln(os.Stderr, "edge process:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runEdgeProcess pins the process to cpu, runs the Caddyfile config
// until its standard input closes (its parent ended or let it go), then
// stops Caddy. With a profile file, it profiles its CPU meanwhile.
func runEdgeProcess(config, cpu, profile string) error {
	n, err := strconv.Atoi(cpu)
	if err != nil {
		return fmt.Errorf("cpu %q: %w", cpu, err)
	}
	if err := setThreadsAffinity([]int{n}); err != nil {
		return err
	}
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	js, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(config), nil)
	if err != nil {
		return err
	}
	if err := caddy.Load(js, true); err != nil {
		return err
	}
	io.Copy(io.Discard, os.Stdin)
	return caddy.Stop()
}

// edgeProcess is an edge running in a child process.
type edgeProcess struct {
	*edge
	cmd *exec.Cmd
}

// startEdgeProcess starts the test binary as an edge relaying to
// upstreamAddr with proxy options on cpu, and waits until it accepts
// sessions. name tells its CPU profile from the other edges'.
func startEdgeProcess(b *testing.B, name string, cert testcert.Cert, upstreamAddr, options string, cpu int) *edgeProcess {
	b.Helper()
	e := &edge{port: testcaddy.FreeTCPAndUDPPort(b), admin: testcaddy.FreePort(b), cert: cert}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), edgeProcessEnv+"="+e.caddyfile(upstreamAddr, options),
		edgeProcessCPUEnv+"="+strconv.Itoa(cpu), "GOMAXPROCS=1")
	if f := flag.Lookup("test.cpuprofile"); f != nil && f.Value.String() != "" {
		cmd.Env = append(cmd.Env, edgeProcessProfileEnv+"="+f.Value.String()+"."+name)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	b.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	testcaddy.Eventually(b, 20*time.Second, "edge process serving sessions", func() bool {
		select {
		case err := <-exited:
			b.Fatalf("edge process exited (%v): %s", err, stderr.String())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, s, err := e.dial(b, ctx, "/discard", nil)
		if err != nil {
			return false
		}
		s.CloseWithError(0, "")
		return true
	})
	e.closeClients()
	return &edgeProcess{edge: e, cmd: cmd}
}

// cpu is the edge process's user and system CPU time so far.
func (p *edgeProcess) cpu(b *testing.B) time.Duration {
	b.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command's closing parenthesis, from the
	// state (field 3): utime and stime are fields 14 and 15, in clock
	// ticks of 1/100 s (USER_HZ on Linux).
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// allowedCPUs are the CPUs this process may run on.
func allowedCPUs(b *testing.B) []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		b.Fatal(err)
	}
	var cpus []int
	for i := range runtime.NumCPU() * 4 {
		if set.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	return cpus
}

func pinThreads(b *testing.B, cpus []int) {
	if err := setThreadsAffinity(cpus); err != nil {
		b.Fatal(err)
	}
}

// setThreadsAffinity moves every thread of the process to cpus; threads
// started later inherit it from the thread that starts them. A thread
// started while the list is read is caught by the next pass.
func setThreadsAffinity(cpus []int) error {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	done := map[int]bool{}
	for {
		entries, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		fresh := false
		for _, e := range entries {
			tid, err := strconv.Atoi(e.Name())
			if err != nil || done[tid] {
				continue
			}
			// A thread that exited meanwhile is no error.
			if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH {
				return fmt.Errorf("pinning thread %d to %v: %w", tid, cpus, err)
			}
			done[tid], fresh = true, true
		}
		if !fresh {
			return nil
		}
	}
}
