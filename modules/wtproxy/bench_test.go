package wtproxy

import (
	"context"
	"io"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/testcert"
)

// benchTarget opens sessions straight to the upstream or through the edge.
type benchTarget struct {
	name string
	open func(b *testing.B, ctx context.Context, path string) *webtransport.Session
}

// benchTargets starts one upstream and one edge in front of it, with
// options for the proxy.
func benchTargets(b *testing.B, options string) []benchTarget {
	cert := testcert.Write(b)
	up := startUpstream(b, cert, nil)
	e := startEdge(b, cert, up.addr, options)
	direct := func(b *testing.B, ctx context.Context, path string) *webtransport.Session {
		client, conn, err := clientConn(ctx, up.addr, cert)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { conn.CloseWithError(0, "") })
		_, s, err := client.Dial(ctx, "https://localhost"+path, nil)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	edge := func(b *testing.B, ctx context.Context, path string) *webtransport.Session {
		return e.mustDial(b, ctx, path)
	}
	return []benchTarget{{"direct", direct}, {"edge", edge}}
}

// BenchmarkStreamEchoRTT is the round trip of 64 bytes on an open
// bidirectional stream, echoed by the upstream.
func BenchmarkStreamEchoRTT(b *testing.B) {
	for _, target := range benchTargets(b, "") {
		b.Run(target.name, func(b *testing.B) {
			ctx := context.Background()
			s := target.open(b, ctx, "/echo/rtt")
			str, err := s.OpenStreamSync(ctx)
			if err != nil {
				b.Fatal(err)
			}
			msg, got := make([]byte, 64), make([]byte, 64)
			rtts := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				if _, err := str.Write(msg); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(str, got); err != nil {
					b.Fatal(err)
				}
				rtts = append(rtts, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(rtts)
			b.ReportMetric(float64(rtts[len(rtts)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(rtts[len(rtts)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// BenchmarkStreamThroughput sends 8 MiB per operation on a new stream to
// an upstream that reads it all and answers with the count.
func BenchmarkStreamThroughput(b *testing.B) {
	const size = 8 << 20
	for _, target := range benchTargets(b, "") {
		b.Run(target.name, func(b *testing.B) {
			ctx := context.Background()
			s := target.open(b, ctx, "/discard")
			chunk := make([]byte, 64<<10)
			b.SetBytes(size)
			b.ResetTimer()
			for range b.N {
				str, err := s.OpenStreamSync(ctx)
				if err != nil {
					b.Fatal(err)
				}
				for sent := 0; sent < size; sent += len(chunk) {
					if _, err := str.Write(chunk); err != nil {
						b.Fatal(err)
					}
				}
				str.Close()
				reply, err := io.ReadAll(str)
				if err != nil || string(reply) != strconv.Itoa(size) {
					b.Fatalf("upstream read %q bytes (%v)", reply, err)
				}
			}
		})
	}
}

// BenchmarkSessionOpen is the time to open a session through the edge on
// an open browser connection: with a QUIC handshake to the upstream for
// each session, or on a shared upstream connection.
func BenchmarkSessionOpen(b *testing.B) {
	for _, sharing := range []struct{ name, options string }{
		{"upstream-conn-per-session", "sessions_per_connection 1"},
		{"upstream-conn-shared", "sessions_per_connection 8"},
	} {
		b.Run(sharing.name, func(b *testing.B) {
			cert := testcert.Write(b)
			up := startUpstream(b, cert, nil)
			e := startEdge(b, cert, up.addr, sharing.options)
			ctx := context.Background()
			client, conn, err := clientConn(ctx, "127.0.0.1:"+e.port, cert)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.CloseWithError(0, "")
			b.ResetTimer()
			for range b.N {
				_, s, err := client.Dial(ctx, "https://localhost:"+e.port+"/echo/open", nil)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				s.CloseWithError(0, "")
				<-up.closed
				b.StartTimer()
			}
		})
	}
}
