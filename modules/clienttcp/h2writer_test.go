package clienttcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// Many concurrent streams on one HTTP/2 connection through client_tcp
// each get their own whole response: the server's writes, joined before
// they reach the socket, keep their order and their bytes.
func TestHTTP2ResponsesThroughTheCoalescer(t *testing.T) {
	filler := strings.Repeat("0123456789abcdef", 384) // 6 KiB: more than one of the server's 4 KiB flushes
	tr := h2cTransport(runWrappedServer(t, `respond "{http.request.uri.path} `+filler+`"`))
	var dials atomic.Int32
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return dial(ctx, network, addr)
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	// The first request opens the connection the streams then share.
	if resp, err := client.Get("http://127.0.0.1/"); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	const streams, each = 32, 20
	var wg sync.WaitGroup
	errs := make(chan error, streams)
	for s := range streams {
		wg.Go(func() {
			for i := range each {
				path := fmt.Sprintf("/s%d/r%d", s, i)
				resp, err := client.Get("http://127.0.0.1" + path)
				if err != nil {
					errs <- err
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if want := path + " " + filler; err != nil || resp.ProtoMajor != 2 || string(body) != want {
					errs <- fmt.Errorf("%s: %s, %d bytes (%v), want %d", path, resp.Proto, len(body), err, len(want))
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := dials.Load(); n != 1 {
		t.Errorf("%d connections, want the streams to share one", n)
	}
}

// pipeCoalescer returns a coalescer writing into one end of a pipe and
// the other end, the client.
func pipeCoalescer(t *testing.T) (*coalescer, net.Conn) {
	server, client := net.Pipe()
	w := newCoalescer(server)
	t.Cleanup(func() {
		client.Close()
		w.close()
	})
	return w, client
}

// taken waits until the writer has taken what was pending.
func taken(t *testing.T, w *coalescer) {
	testcaddy.Eventually(t, 5*time.Second, "the writer takes the pending bytes", func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.pending == nil
	})
}

// Writes made while an earlier write is on its way to the client leave
// in one write after it.
func TestCoalescerJoinsWritesMadeDuringAWrite(t *testing.T) {
	w, client := pipeCoalescer(t)
	if _, err := w.Write([]byte("a")); err != nil {
		t.Fatal(err)
	}
	taken(t, w) // and blocked writing it: the pipe has no buffer
	for _, p := range []string{"b", "cd", "e"} {
		if _, err := w.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, 64)
	for _, want := range []string{"a", "bcde"} {
		n, err := client.Read(buf) // one Read of a pipe gets one Write
		if err != nil || string(buf[:n]) != want {
			t.Fatalf("read %q (%v), want %q", buf[:n], err, want)
		}
	}
}

// A client that reads slowly holds Write back: the bytes accepted and not
// yet read stay within the pending bound plus the write on its way.
func TestCoalescerBoundsWhatWaits(t *testing.T) {
	w, client := pipeCoalescer(t)
	const chunk, total = 4 << 10, 1 << 20
	var accepted atomic.Int64
	go func() {
		p := make([]byte, chunk)
		for accepted.Load() < total {
			if _, err := w.Write(p); err != nil {
				return
			}
			accepted.Add(chunk)
		}
	}()
	// The writer may hold maxPending plus the Write that crossed it, and
	// as many more pending behind it, plus the Write waiting.
	const bound = 2*(maxPending+chunk) + chunk
	buf := make([]byte, 1<<10)
	for read := int64(0); read < total; {
		n, err := client.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		read += int64(n)
		if ahead := accepted.Load() - read; ahead > bound {
			t.Fatalf("%d bytes accepted beyond what the client read, bound %d", ahead, bound)
		}
	}
}

// Close writes what is pending before it returns.
func TestCoalescerCloseWritesWhatIsPending(t *testing.T) {
	w, client := pipeCoalescer(t)
	want := strings.Repeat("x", 3*maxPending/2)
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(client)
		got <- string(b)
	}()
	for i := 0; i < len(want); i += 1000 {
		if _, err := w.Write([]byte(want[i:min(i+1000, len(want))])); err != nil {
			t.Fatal(err)
		}
	}
	w.close()
	w.conn.Close() // as conn.Close does after it: the reader gets EOF
	if b := <-got; b != want {
		t.Fatalf("the client read %d bytes, want %d", len(b), len(want))
	}
	if _, err := w.Write([]byte("late")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Write after close: %v, want net.ErrClosed", err)
	}
}

// A client that reads nothing holds Close for closeFlushTimeout at most.
func TestCoalescerCloseGivesUpOnAClientThatDoesNotRead(t *testing.T) {
	w, _ := pipeCoalescer(t)
	if _, err := w.Write([]byte("never read")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	w.close()
	if d := time.Since(start); d > closeFlushTimeout+time.Second {
		t.Fatalf("close took %v", d)
	}
}

// Once a write fails, Write returns the error and the connection is closed
// (so the server's reads end too).
func TestCoalescerWriteErrorSticks(t *testing.T) {
	w, client := pipeCoalescer(t)
	client.Close()
	testcaddy.Eventually(t, 5*time.Second, "Write returns the failed write's error", func() bool {
		_, err := w.Write([]byte("a"))
		return errors.Is(err, io.ErrClosedPipe)
	})
	if _, err := w.conn.Read(make([]byte, 1)); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("read after the failed write: %v, want the connection closed", err)
	}
}
