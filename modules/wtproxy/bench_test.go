//go:build unix

package wtproxy

import (
	"context"
	"crypto/tls"
	"io"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/testcert"
	"github.com/lastmile-edge/lastmile/internal/wtclient"
)

// benchTarget opens sessions straight to the upstream or through the edge.
type benchTarget struct {
	name string
	open func(b *testing.B, ctx context.Context, path string) *webtransport.Session
}

// benchTargets starts one upstream and returns targets for it: direct,
// and through an edge per proxy options variant (name suffix → options),
// each edge started when its target is first used (Caddy runs one config
// at a time).
func benchTargets(parent *testing.B, variants ...[2]string) []benchTarget {
	b := parent
	cert := testcert.Write(b)
	up := startUpstream(b, cert, nil)
	targets := []benchTarget{directTarget(cert, up.addr)}
	if len(variants) == 0 {
		variants = [][2]string{{"", ""}}
	}
	for _, v := range variants {
		var e *edge
		targets = append(targets, benchTarget{"edge" + v[0], func(b *testing.B, ctx context.Context, path string) *webtransport.Session {
			if e == nil {
				// The parent's: a sub-benchmark's function runs more than once.
				e = startEdge(parent, cert, up.addr, v[1])
			}
			return e.mustDial(b, ctx, path)
		}})
	}
	return targets
}

// directTarget opens sessions straight to the upstream at addr.
func directTarget(cert testcert.Cert, addr string) benchTarget {
	return benchTarget{"direct", func(b *testing.B, ctx context.Context, path string) *webtransport.Session {
		client, conn, err := clientConn(ctx, addr, cert)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { conn.CloseWithError(0, "") })
		_, s, err := client.Dial(ctx, "https://localhost"+path, nil)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}}
}

// BenchmarkStreamEchoRTT is the round trip of 64 bytes on an open
// bidirectional stream, echoed by the upstream.
func BenchmarkStreamEchoRTT(b *testing.B) {
	for _, target := range benchTargets(b) {
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
	for _, target := range benchTargets(b, [2]string{"", ""}, [2]string{"-buffer-32KiB", "buffer_size 32KiB"}) {
		b.Run(target.name, func(b *testing.B) {
			s := target.open(b, context.Background(), "/discard")
			cpuStart, wallStart := processCPU(b), time.Now()
			sendStreams(b, s)
			// Client, edge and upstream share the process: CPU per
			// operation and cores busy say whether the CPU is the bound.
			reportCPU(b, processCPU(b)-cpuStart, time.Since(wallStart), "")
		})
	}
}

// throughputStreamSize is what each operation of the throughput
// benchmarks sends.
const throughputStreamSize = 8 << 20

// sendStreams sends throughputStreamSize bytes on a new stream per
// operation to s's /discard upstream, which counts them.
func sendStreams(b *testing.B, s *webtransport.Session) {
	perStream(b, func() error { return wtclient.Upload(context.Background(), s, throughputStreamSize) })
}

// receiveStreams asks s's /source upstream for throughputStreamSize
// bytes on a new stream per operation, and reads them all.
func receiveStreams(b *testing.B, s *webtransport.Session) {
	perStream(b, func() error { return wtclient.Download(context.Background(), s, throughputStreamSize) })
}

// perStream runs transfer, throughputStreamSize bytes on a new stream,
// once per operation.
func perStream(b *testing.B, transfer func() error) {
	b.SetBytes(throughputStreamSize)
	b.ResetTimer()
	for range b.N {
		if err := transfer(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
}

// reportCPU reports cpu, spent over wall, per operation and in cores,
// under names prefixed by who spent it.
func reportCPU(b *testing.B, cpu, wall time.Duration, who string) {
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), who+"cpu-ms/op")
	b.ReportMetric(cpu.Seconds()/wall.Seconds(), who+"cores")
}

// BenchmarkUpstreamSessionOpen is the time the edge takes to open an
// upstream session on a new QUIC connection (handshake included) and on
// a pooled one.
func BenchmarkUpstreamSessionOpen(b *testing.B) {
	cert := testcert.Write(b)
	up := startUpstream(b, cert, nil)
	tlsConf := &tls.Config{RootCAs: cert.Pool, ServerName: "localhost", NextProtos: []string{http3.NextProtoH3}}
	for _, reuse := range []bool{false, true} {
		name := "new-connection"
		if reuse {
			name = "pooled-connection"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			pool := newConnPool(tlsConf, up.addr, 1000, 100)
			defer pool.close()
			for range b.N {
				uc, reused, err := pool.get(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if reused != reuse && reuse {
					b.StopTimer() // the first session of the pooled run dials
				}
				_, s, err := uc.client.Dial(ctx, "https://localhost/echo/open", nil)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				s.CloseWithError(0, "")
				<-up.closed
				pool.release(uc)
				if !reuse {
					uc.qconn.CloseWithError(0, "")
					<-uc.qconn.Context().Done()
				}
				b.StartTimer()
			}
		})
	}
}

// processCPU is the process's user and system CPU time so far (getrusage:
// hence unix only; the benchmarks measure this machine).
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
