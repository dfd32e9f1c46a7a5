package wtproxy

import (
	"context"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	"github.com/lastmile-edge/lastmile/internal/testcert"
)

// A slow reader behind the relay stops the writer: the relay holds no
// more than its buffer, the rest waits in QUIC's flow-control windows.
func TestSlowReaderStopsWriter(t *testing.T) {
	cert := testcert.Write(t)
	const upstreamWindow = 64 << 10
	up := startUpstream(t, cert, &quic.Config{
		InitialStreamReceiveWindow: upstreamWindow,
		MaxStreamReceiveWindow:     upstreamWindow,
	})
	// Larger than the 16 KiB a stream starts with: the stream's buffer
	// grows to it, and the bound still holds.
	const bufSize = 64 << 10
	e := startEdge(t, cert, up.addr, "buffer_size 64KiB")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	relayedSeries := `lastmile_webtransport_proxy_stream_bytes_total{direction="to_upstream"}`
	relayedBefore := e.metric(t, relayedSeries)

	s := e.mustDial(t, ctx, "/sink")
	str, err := s.OpenStreamSync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const total = 16 << 20
	var written atomic.Int64
	writeDone := make(chan error, 1)
	go func() {
		chunk := make([]byte, 16<<10)
		for written.Load() < total {
			n, err := str.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				writeDone <- err
				return
			}
		}
		writeDone <- str.Close()
	}()
	sink := receive(t, up.sinks, "stream at the upstream")

	// Wait until the writer is stopped: no progress for half a second
	// (50 polls, 10 ms apart).
	last, still := int64(-1), 0
	testcaddy.Eventually(t, 20*time.Second, "the writer stalls", func() bool {
		if w := written.Load(); w != last {
			last, still = w, 0
			return false
		}
		still++
		return still >= 50 && last > 0
	})
	relayed := e.metric(t, relayedSeries) - relayedBefore
	t.Logf("writer stopped after %d bytes; relay passed %.0f to the upstream, whose window is %d", last, relayed, upstreamWindow)
	if last >= total {
		t.Fatalf("the writer wrote all %d bytes to a reader that reads nothing", total)
	}
	// What the relay took from the browser's stream and has not passed
	// on is at most one buffer.
	if relayed > upstreamWindow+bufSize {
		t.Errorf("relay passed %.0f bytes to a reader whose window is %d", relayed, upstreamWindow)
	}
	// The rest is in the edge's QUIC receive window (quic-go's default
	// stream window grows to 6 MiB) and the client's send path.
	if last > 6<<20+upstreamWindow+2*bufSize {
		t.Errorf("writer got %d bytes out: more than the windows and one buffer", last)
	}

	// The reader catches up: everything arrives, in full.
	n, err := io.Copy(io.Discard, sink)
	if err != nil || n != total {
		t.Fatalf("upstream read %d bytes (%v), want %d", n, err, total)
	}
	if err := receive(t, writeDone, "writer's end"); err != nil {
		t.Fatalf("writer: %v", err)
	}
}
