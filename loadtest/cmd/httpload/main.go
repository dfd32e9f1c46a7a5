// Command httpload is a closed-loop HTTP load generator for HTTP/1.1,
// HTTP/2 and HTTP/3, bounded in time and request count. Each of -c workers
// sends one request at a time; it prints requests/s and latency
// percentiles as one JSON line.
//
// It exists beside k6 because k6 speaks no HTTP/3 without our extension,
// and benchmarks of the edge's hit path need the same client on all three
// protocols in one tool.
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
)

type result struct {
	Proto      string  `json:"proto"`
	URL        string  `json:"url"`
	Requests   int64   `json:"requests"`
	Errors     int64   `json:"errors"`
	Seconds    float64 `json:"seconds"`
	ReqPerSec  float64 `json:"req_per_sec"`
	P50Ms      float64 `json:"p50_ms"`
	P99Ms      float64 `json:"p99_ms"`
	BytesTotal int64   `json:"bytes"`
	// Over HTTP/3, the QUIC packets and their bytes each way over the
	// measured run, per response (what the server's sends cost the client).
	PacketsInPerResponse  float64 `json:"packets_in_per_response,omitempty"`
	PacketsOutPerResponse float64 `json:"packets_out_per_response,omitempty"`
	BytesInPerResponse    float64 `json:"bytes_in_per_response,omitempty"`
	BytesOutPerResponse   float64 `json:"bytes_out_per_response,omitempty"`
	// The response field sections' bytes (HTTP/3's HEADERS frames'
	// payloads), per response: what QPACK's table saves.
	HeadBytesPerResponse float64 `json:"head_bytes_per_response,omitempty"`
}

func main() {
	url := flag.String("url", "", "URL to load")
	proto := flag.String("proto", "h1", "h1, h2 or h3")
	conc := flag.Int("c", 32, "concurrent workers")
	conns := flag.Int("conns", 1, "connections for h2 and h3 (h1 uses one per worker)")
	dur := flag.Duration("d", 10*time.Second, "duration")
	maxReq := flag.Int64("n", 10_000_000, "stop after this many requests")
	warmup := flag.Duration("warmup", time.Second, "load before measuring")
	insecure := flag.Bool("k", true, "skip certificate verification (loopback benchmarks)")
	keys := flag.Int("keys", 1, "with N > 1, request <url>0 to <url>N-1 in turn (-url ends with the keys' common prefix)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the measured run (not the warm-up) to this file")
	qpackTable := flag.Uint64("qpack-table", 0, "over HTTP/3, offer the server a QPACK dynamic table of this many bytes (Chromium: 65536)")
	traceFile := flag.String("trace", "", "write an execution trace of the measured run's first 200 ms to this file (go tool trace)")
	flag.Parse()
	if *url == "" || *keys < 1 {
		fmt.Fprintln(os.Stderr, "httpload: -url is required, and -keys must be at least 1")
		os.Exit(2)
	}
	urls := []string{*url}
	if *keys > 1 {
		urls = make([]string, *keys)
		for i := range urls {
			urls[i] = *url + strconv.Itoa(i)
		}
	}
	if os.Getenv("GOGC") == "" {
		// Over HTTP/3 the client spends about as much CPU per request as
		// the server, and its garbage collector (marking and assists) a
		// tenth of it at the default GOGC=100 (docs/results/hit-profile.md);
		// a load generator's heap is small, so it may grow 5x between
		// cycles instead of 2x. GOGC in the environment overrides this.
		debug.SetGCPercent(400)
	}
	tlsConf := &tls.Config{InsecureSkipVerify: *insecure}
	newFetch, h3conns, err := fetchers(*proto, urls, tlsConf, max(1, *conns), *conc, *qpackTable)
	if err != nil {
		fmt.Fprintln(os.Stderr, "httpload:", err)
		os.Exit(2)
	}
	run := func(d time.Duration, n int64) result {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		var count, errs, bytes atomic.Int64
		lat := make([][]time.Duration, *conc)
		var wg sync.WaitGroup
		start := time.Now()
		for i := range *conc {
			fetch := newFetch(i)
			wg.Go(func() {
				// Workers start on different keys and step through all.
				for k := i; ctx.Err() == nil && count.Add(1) <= n; k++ {
					t0 := time.Now()
					b, err := fetch(ctx, urls[k%len(urls)])
					if err != nil {
						if ctx.Err() == nil { // not a wait for a stream the run's end cut short
							errs.Add(1)
						}
						continue
					}
					bytes.Add(b)
					lat[i] = append(lat[i], time.Since(t0))
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start).Seconds()
		all := slices.Concat(lat...)
		slices.Sort(all)
		pct := func(p float64) float64 {
			if len(all) == 0 {
				return 0
			}
			return float64(all[min(len(all)-1, int(p*float64(len(all))))].Microseconds()) / 1000
		}
		return result{Proto: *proto, URL: *url, Requests: int64(len(all)), Errors: errs.Load(), Seconds: elapsed,
			ReqPerSec: float64(len(all)) / elapsed, P50Ms: pct(0.50), P99Ms: pct(0.99), BytesTotal: bytes.Load()}
	}
	if *warmup > 0 {
		run(*warmup, *maxReq)
	}
	if *cpuProfile != "" {
		// Whether the client or the server limits a run is the question
		// this answers: over HTTP/3 both sides spend CPU per request.
		f := startWriting(*cpuProfile, pprof.StartCPUProfile)
		defer f.Close()
	}
	if *traceFile != "" {
		// How the client's goroutines take turns with its connection's
		// run loop decides how often the two sides wait for each other.
		f := startWriting(*traceFile, trace.Start)
		time.AfterFunc(200*time.Millisecond, func() { trace.Stop(); f.Close() })
	}
	before := h3conns.stats()
	res := run(*dur, *maxReq)
	pprof.StopCPUProfile()
	if after := h3conns.stats(); res.Requests > 0 && after.PacketsReceived > 0 {
		n := float64(res.Requests)
		res.PacketsInPerResponse = float64(after.PacketsReceived-before.PacketsReceived) / n
		res.PacketsOutPerResponse = float64(after.PacketsSent-before.PacketsSent) / n
		res.BytesInPerResponse = float64(after.BytesReceived-before.BytesReceived) / n
		res.BytesOutPerResponse = float64(after.BytesSent-before.BytesSent) / n
		res.HeadBytesPerResponse = float64(after.HeadBytes-before.HeadBytes) / n
	}
	_ = json.NewEncoder(os.Stdout).Encode(res)
	if res.Errors > 0 {
		os.Exit(1)
	}
}

// startWriting creates path and starts start writing to it, or exits.
func startWriting(path string, start func(io.Writer) error) *os.File {
	f, err := os.Create(path)
	if err == nil {
		err = start(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "httpload:", err)
		os.Exit(2)
	}
	return f
}

// requestTimeout bounds one request, so a server that stops answering ends
// a run with errors instead of hanging it.
const requestTimeout = 30 * time.Second

// A fetch GETs a URL and reads the response whole, returning the body's
// length; a status other than 200 is an error.
type fetch func(ctx context.Context, url string) (int64, error)

// fetchers connects as proto needs (conns connections for h2 and h3; one
// per worker of conc for h1) and returns what makes worker i's fetch, and
// the HTTP/3 connections.
func fetchers(proto string, urls []string, tlsConf *tls.Config, conns, conc int, qpackTable uint64) (func(i int) fetch, h3Conns, error) {
	if proto == "h3" {
		var h3 h3Conns
		for range conns {
			c, err := dialH3Frames(context.Background(), urls, tlsConf, &quic.Config{}, qpackTable)
			if err != nil {
				return nil, nil, err
			}
			h3 = append(h3, c)
		}
		return func(i int) fetch {
			c, br := h3[i%len(h3)], bufio.NewReaderSize(nil, 16<<10)
			return func(ctx context.Context, url string) (int64, error) { return c.get(ctx, url, br) }
		}, h3, nil
	}
	clients := make([]*http.Client, conns)
	for i := range clients {
		clients[i] = &http.Client{Transport: transport(proto, tlsConf, conc), Timeout: requestTimeout}
	}
	return func(i int) fetch {
		client := clients[i%len(clients)]
		return func(ctx context.Context, url string) (int64, error) {
			resp, err := client.Get(url)
			if err != nil {
				return 0, err
			}
			defer resp.Body.Close()
			n, err := io.Copy(io.Discard, resp.Body)
			if err == nil && resp.StatusCode != 200 {
				err = fmt.Errorf("status %d", resp.StatusCode)
			}
			return n, err
		}
	}, nil, nil
}

// h3Conns are the HTTP/3 connections, kept for their packet counts.
type h3Conns []*h3Frames

// h3Stats are the HTTP/3 connections' counts, summed.
type h3Stats struct {
	quic.ConnectionStats
	HeadBytes int64
}

// stats sums the connections' packet and byte counts.
func (h h3Conns) stats() (sum h3Stats) {
	for _, c := range h {
		sum.HeadBytes += c.headBytes.Load()
		s := c.conn.ConnectionStats()
		sum.PacketsSent += s.PacketsSent
		sum.PacketsReceived += s.PacketsReceived
		sum.BytesSent += s.BytesSent
		sum.BytesReceived += s.BytesReceived
	}
	return sum
}

func transport(proto string, tlsConf *tls.Config, conc int) http.RoundTripper {
	if proto == "h2" {
		return &http.Transport{TLSClientConfig: tlsConf, ForceAttemptHTTP2: true, MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1}
	}
	return &http.Transport{
		TLSClientConfig: tlsConf, MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc,
		TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{},
	}
}
