//go:build linux

package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"golang.org/x/sys/unix"

	"github.com/lastmile-edge/lastmile/internal/demoorigin"
	"github.com/lastmile-edge/lastmile/internal/qlogdir"
)

// Helpers run inside the lab's namespaces: the lab re-executes this
// binary with one of these subcommands and reads its JSON output.
var helpers = map[string]func(args []string) error{
	"echo-server": echoServer,
	"ping":        ping,
	"tcp-sink":    tcpSink,
	"tcp-send":    tcpSend,
	"origin":      origin,
	"pageload":    pageLoadCmd,
	"fetch":       fetchCmd,
	"wt-origin":   wtOrigin,
	"wt-transfer": wtTransfer,
	"qlog-pages":  qlogPages,
}

func echoServer(args []string) error {
	fs := flag.NewFlagSet("echo-server", flag.ExitOnError)
	addr := fs.String("addr", ":7", "UDP address")
	_ = fs.Parse(args)
	pc, err := net.ListenPacket("udp", *addr)
	if err != nil {
		return err
	}
	buf := make([]byte, 2048)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			return err
		}
		_, _ = pc.WriteTo(buf[:n], from)
	}
}

type pingResult struct {
	Sent     int       `json:"sent"`
	Received int       `json:"received"`
	RTTsMs   []float64 `json:"rtts_ms"`
}

// ping sends numbered UDP probes at an interval and times their echoes.
func ping(args []string) error {
	fs := flag.NewFlagSet("ping", flag.ExitOnError)
	addr := fs.String("addr", "", "echo server")
	n := fs.Int("n", 200, "probes")
	interval := fs.Duration("interval", 20*time.Millisecond, "between probes")
	wait := fs.Duration("wait", 3*time.Second, "for the last echoes")
	_ = fs.Parse(args)
	conn, err := net.Dial("udp", *addr)
	if err != nil {
		return err
	}
	sent := make([]time.Time, *n)
	res := pingResult{Sent: *n}
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 64)
		for {
			_ = conn.SetReadDeadline(time.Now().Add(*wait))
			k, err := conn.Read(buf)
			if err != nil {
				return
			}
			if k < 8 {
				continue
			}
			i := int(binary.BigEndian.Uint64(buf))
			mu.Lock()
			if i < len(sent) && !sent[i].IsZero() {
				res.RTTsMs = append(res.RTTsMs, float64(time.Since(sent[i]).Microseconds())/1000)
				res.Received++
				sent[i] = time.Time{}
			}
			mu.Unlock()
		}
	}()
	probe := make([]byte, 64)
	for i := range *n {
		binary.BigEndian.PutUint64(probe, uint64(i))
		mu.Lock()
		sent[i] = time.Now()
		mu.Unlock()
		_, _ = conn.Write(probe)
		time.Sleep(*interval)
	}
	<-done
	return json.NewEncoder(os.Stdout).Encode(res)
}

// congestionControl is a socket Control that sets TCP_CONGESTION (none
// for ""); accepted sockets inherit a listener's.
func congestionControl(cc string) func(network, address string, rc syscall.RawConn) error {
	return func(_, _ string, rc syscall.RawConn) error {
		if cc == "" {
			return nil
		}
		var serr error
		err := rc.Control(func(fd uintptr) { serr = unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, cc) })
		return errors.Join(err, serr)
	}
}

func tcpSink(args []string) error {
	fs := flag.NewFlagSet("tcp-sink", flag.ExitOnError)
	addr := fs.String("addr", ":5201", "TCP address")
	_ = fs.Parse(args)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		go func() { _, _ = io.Copy(io.Discard, c); c.Close() }()
	}
}

type sendResult struct {
	CC      string  `json:"cc"`
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"`
	Mbit    float64 `json:"mbit_per_s"`
}

// tcpSend sends as fast as TCP lets it for a while, with the congestion
// control set on the socket (TCP_CONGESTION) and read back.
func tcpSend(args []string) error {
	fs := flag.NewFlagSet("tcp-send", flag.ExitOnError)
	addr := fs.String("addr", "", "sink")
	cc := fs.String("cc", "cubic", "congestion control")
	dur := fs.Duration("d", 20*time.Second, "duration")
	_ = fs.Parse(args)
	d := net.Dialer{Control: congestionControl(*cc)}
	conn, err := d.Dial("tcp", *addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	rc, _ := conn.(*net.TCPConn).SyscallConn()
	var got string
	_ = rc.Control(func(fd uintptr) { got, _ = unix.GetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION) })
	if got != *cc {
		return fmt.Errorf("socket has congestion control %q, asked for %q", got, *cc)
	}
	buf := make([]byte, 256<<10)
	start := time.Now()
	var total int64
	_ = conn.SetWriteDeadline(start.Add(*dur))
	for time.Since(start) < *dur {
		n, err := conn.Write(buf)
		total += int64(n)
		if err != nil {
			break
		}
	}
	secs := time.Since(start).Seconds()
	return json.NewEncoder(os.Stdout).Encode(sendResult{CC: got, Bytes: total, Seconds: secs, Mbit: float64(total) * 8 / secs / 1e6})
}

// origin serves the demo origin over plain HTTP (for the edge) and over
// HTTPS with HTTP/2 (for clients in the direct topology).
func origin(args []string) error {
	fs := flag.NewFlagSet("origin", flag.ExitOnError)
	plain := fs.String("http", ":8080", "plain HTTP address")
	secure := fs.String("https", ":443", "HTTPS address")
	cc := fs.String("cc", "", "congestion control of the origin's sockets (accepted sockets inherit the listener's)")
	_ = fs.Parse(args)
	lc := net.ListenConfig{Control: congestionControl(*cc)}
	h := demoorigin.New()
	cert, err := selfSigned()
	if err != nil {
		return err
	}
	errc := make(chan error, 2)
	pln, err := lc.Listen(context.Background(), "tcp", *plain)
	if err != nil {
		return err
	}
	sln, err := lc.Listen(context.Background(), "tcp", *secure)
	if err != nil {
		return err
	}
	go func() {
		srv := &http.Server{Handler: h, Protocols: new(http.Protocols)}
		srv.Protocols.SetHTTP1(true)
		srv.Protocols.SetUnencryptedHTTP2(true) // for origin_link's h2c
		errc <- srv.Serve(pln)
	}()
	go func() {
		srv := &http.Server{Handler: h, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}}
		errc <- srv.ServeTLS(sln, "", "")
	}()
	return <-errc
}

func selfSigned() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "lab origin"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// labTransport is the client side of the lab: HTTP/1.1 over plain TCP
// ("h1", conns connections at most), HTTP/2 over TLS ("h2") or HTTP/3
// ("h3", with quicConf, offering a QPACK dynamic table as Chromium
// does), trusting the lab's certificates.
const (
	settingQPACKMaxTableCapacity = 0x1      // SETTINGS_QPACK_MAX_TABLE_CAPACITY, RFC 9204
	chromiumQPACKTableCapacity   = 64 << 10 // what Chromium offers
)

func labTransport(proto string, conns int, quicConf *quic.Config) (http.RoundTripper, func()) {
	tlsConf := &tls.Config{InsecureSkipVerify: true} // lab certificates
	switch proto {
	case "h3":
		tr := &http3.Transport{TLSClientConfig: tlsConf, QUICConfig: quicConf,
			AdditionalSettings: map[uint64]uint64{settingQPACKMaxTableCapacity: chromiumQPACKTableCapacity}}
		return tr, func() { tr.Close() }
	case "h2":
		tr := &http.Transport{TLSClientConfig: tlsConf, ForceAttemptHTTP2: true, DisableCompression: true}
		return tr, tr.CloseIdleConnections
	default:
		tr := &http.Transport{MaxConnsPerHost: conns, MaxIdleConnsPerHost: conns, DisableCompression: true}
		return tr, tr.CloseIdleConnections
	}
}

// loadResult is one page load as a browser would do it.
type loadResult struct {
	TTFBMs float64 `json:"ttfb_ms"`
	LoadMs float64 `json:"load_ms"`
	Bytes  int64   `json:"bytes"` // the page's and its subresources' bodies
	// HTMLFromOrigin: the edge fetched the HTML before answering (its
	// Cache-Status has fwd=): a miss, or a page idle past s-maxage +
	// stale-while-revalidate, which waits a backbone round trip.
	HTMLFromOrigin bool   `json:"html_from_origin,omitempty"`
	Err            string `json:"err,omitempty"`
}

// pageLoadCmd loads a demo page and its 15 subresources (CSS, JS, 8
// images, 4 photos of 40 KB, an API response) in parallel, runs times, on
// a new connection each time (cold) or on one kept connection (warm).
func pageLoadCmd(args []string) error {
	fs := flag.NewFlagSet("pageload", flag.ExitOnError)
	base := fs.String("url", "", "https://host")
	proto := fs.String("proto", "h2", "h2 or h3")
	runs := fs.Int("runs", 20, "page loads")
	mode := fs.String("mode", "cold", "cold or warm")
	qlogDir := fs.String("qlog", os.Getenv("QLOGDIR"), "directory for a qlog file per HTTP/3 connection, <odcid>_client.sqlog (default $QLOGDIR; none if empty)")
	prime := fs.Bool("prime", false, "first fetch the pages' HTML once, unmeasured, so the edge's copies are fresh when the loads start")
	_ = fs.Parse(args)
	if *prime {
		if err := primePages(*base); err != nil {
			return err
		}
	}
	quicConf := &quic.Config{}
	if *qlogDir != "" {
		d, err := qlogdir.New(*qlogDir, clientQlogMaxSize)
		if err != nil {
			return err
		}
		quicConf.Tracer = d.Tracer
	}
	newClient := func() (*http.Client, func()) {
		tr, closeTr := labTransport(*proto, 0, quicConf)
		return &http.Client{Transport: tr, Timeout: 60 * time.Second}, closeTr
	}
	var results []loadResult
	var client *http.Client
	var closeClient func()
	if *mode == "warm" {
		client, closeClient = newClient()
		defer closeClient()
		_ = loadPage(client, *base, 1) // opens the connection
	}
	for i := range *runs {
		if *mode == "cold" {
			client, closeClient = newClient()
		}
		r := loadPage(client, *base, i%loadedPages+1)
		if *mode == "cold" {
			closeClient()
		}
		results = append(results, r)
	}
	return json.NewEncoder(os.Stdout).Encode(results)
}

// loadedPages is how many demo pages the loads cycle through (/page/1 to
// /page/loadedPages). One: each load finds its page as the one before
// left it, fresh or within its stale-while-revalidate window, unless that
// load took over about 11 s (s-maxage=1 + stale-while-revalidate=10).
// With five, a variant whose loads took over about 2.2 s came back to a
// page after its window had closed and waited for the origin across the
// backbone: the slower variant was slowed further by something the last
// mile it is measured on has no part in (9 of 20 kept HTTP/2 loads on
// lte-india, none of HTTP/3's, 2026-11-25).
const loadedPages = 1

// primePages fetches the HTML of the pages the loads cycle through, over a
// connection of its own, before a variant's loads: the demo origin lets
// the edge serve a page stale for 10 s after its 1 s (s-maxage=1,
// stale-while-revalidate=10), and the previous variant may have ended
// longer ago (the runner waits up to 35 s for the edge to close the QUIC
// connections whose traces it reads; a failed load takes up to the
// client's timeout). Without it the first load of each page waits for the
// edge's revalidation across the backbone, which has nothing to do with the
// last mile the variants compare. HTTP/2, so no QUIC connection of its own
// lands among a variant's qlog traces.
func primePages(base string) error {
	tr, closeTr := labTransport("h2", 0, nil)
	defer closeTr()
	c := &http.Client{Transport: tr, Timeout: 60 * time.Second}
	var discard atomic.Int64
	for page := 1; page <= loadedPages; page++ {
		req, _ := http.NewRequest(http.MethodGet, base+"/page/"+strconv.Itoa(page), nil)
		if _, err := fetch(c, req, &discard); err != nil {
			return fmt.Errorf("priming the edge: %w", err)
		}
	}
	return nil
}

// clientQlogMaxSize bounds the qlog of one pageload run: a few hundred
// page loads write tens of MB.
const clientQlogMaxSize = 1 << 30

func loadPage(c *http.Client, base string, page int) loadResult {
	start := time.Now()
	var ttfb time.Duration
	trace := &httptrace.ClientTrace{GotFirstResponseByte: func() { ttfb = time.Since(start) }}
	ctx := httptrace.WithClientTrace(context.Background(), trace)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/page/"+strconv.Itoa(page), nil)
	var bytes atomic.Int64
	header, err := fetch(c, req, &bytes)
	if err != nil {
		return loadResult{Err: err.Error()}
	}
	paths := []string{"/static/app.css", "/static/app.js", "/api/products?page=" + strconv.Itoa(page)}
	for i := range 8 {
		paths = append(paths, fmt.Sprintf("/img/p%d-%d.svg", page, i))
	}
	for i := range 4 {
		paths = append(paths, fmt.Sprintf("/photo/p%d-%d.jpg", page, i))
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(paths))
	for _, p := range paths {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodGet, base+p, nil)
			if _, err := fetch(c, req, &bytes); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	res := loadResult{TTFBMs: ms(ttfb), LoadMs: ms(time.Since(start)), Bytes: bytes.Load(),
		HTMLFromOrigin: strings.Contains(header.Get("Cache-Status"), "fwd=")}
	if err := <-errs; err != nil {
		res.Err = err.Error()
	}
	return res
}

// fetch reads one response whole, adding its body's size to bytes, and
// returns its header.
func fetch(c *http.Client, req *http.Request, bytes *atomic.Int64) (http.Header, error) {
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	bytes.Add(n)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", req.URL.Path, resp.Status)
	}
	return resp.Header, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

type fetchResult struct {
	TTFBMs  []float64 `json:"ttfb_ms"`
	TotalMs float64   `json:"total_ms"`
	Bytes   int64     `json:"bytes"`
	Mbit    float64   `json:"mbit_per_s"`
	Errors  int       `json:"errors"`
	Partial int       `json:"partial"` // bodies cut off at -max-time
}

// fetchCmd sends n GETs at once (by default plain HTTP/1.1, a connection
// each, as the edge's users' requests arrive; or over one HTTP/2 or HTTP/3
// connection) and reports each one's time to first byte, the total time
// and the throughput.
func fetchCmd(args []string) error {
	fs := flag.NewFlagSet("fetch", flag.ExitOnError)
	url := fs.String("url", "", "URL; %d is replaced by the request's index")
	n := fs.Int("n", 1, "parallel requests")
	proto := fs.String("proto", "h1", "h1 (plain HTTP/1.1), h2 or h3 (https URLs)")
	maxTime := fs.Duration("max-time", 5*time.Minute, "stop reading a body after this; its bytes so far count")
	_ = fs.Parse(args)
	tr, closeTr := labTransport(*proto, *n, &quic.Config{})
	defer closeTr()
	c := &http.Client{Transport: tr}
	ctx, cancel := context.WithTimeout(context.Background(), *maxTime)
	defer cancel()
	var mu sync.Mutex
	var res fetchResult
	var wg sync.WaitGroup
	start := time.Now()
	for i := range *n {
		wg.Go(func() {
			u := *url
			if strings.Contains(u, "%d") {
				u = fmt.Sprintf(u, i)
			}
			t0 := time.Now()
			var ttfb time.Duration
			trace := &httptrace.ClientTrace{GotFirstResponseByte: func() { ttfb = time.Since(t0) }}
			req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodGet, u, nil)
			resp, err := c.Do(req)
			var nb int64
			partial := false
			if err == nil {
				nb, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil && ctx.Err() != nil && nb > 0 {
					err, partial = nil, true
				}
				if err == nil && resp.StatusCode != 200 {
					err = errors.New(resp.Status)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if partial {
				res.Partial++
			}
			if err != nil {
				res.Errors++
				return
			}
			res.TTFBMs = append(res.TTFBMs, ms(ttfb))
			res.Bytes += nb
		})
	}
	wg.Wait()
	el := time.Since(start)
	res.TotalMs = ms(el)
	res.Mbit = float64(res.Bytes) * 8 / el.Seconds() / 1e6
	return json.NewEncoder(os.Stdout).Encode(res)
}
