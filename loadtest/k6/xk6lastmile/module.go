// Package xk6lastmile is the k6 extension k6/x/lastmile: HTTP/3 requests
// and WebTransport sessions from k6 scripts, with metrics named and tagged
// like k6's own http_req_* ones.
package xk6lastmile

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"
	"go.k6.io/k6/v2/js/modules"
	"go.k6.io/k6/v2/metrics"
)

func init() {
	modules.Register("k6/x/lastmile", new(rootModule))
}

type rootModule struct{}

// extMetrics are registered once per test (the registry returns the same
// metric to every VU).
type extMetrics struct {
	reqs, reqDuration, reqWaiting, reqFailed, reqConnecting, reqReceiving *metrics.Metric
	wtSessions, wtDuration, wtDatagramRTT, wtFailed                       *metrics.Metric
}

func (*rootModule) NewModuleInstance(vu modules.VU) modules.Instance {
	reg := vu.InitEnv().Registry
	m := &extMetrics{
		reqs:        reg.MustNewMetric("lastmile_h3_reqs", metrics.Counter),
		reqDuration: reg.MustNewMetric("lastmile_h3_req_duration", metrics.Trend, metrics.Time),
		reqWaiting:  reg.MustNewMetric("lastmile_h3_req_waiting", metrics.Trend, metrics.Time),
		reqFailed:   reg.MustNewMetric("lastmile_h3_req_failed", metrics.Rate),
		// QUIC does the transport and TLS handshakes in one: connecting
		// is both, and 0 on a kept connection.
		reqConnecting: reg.MustNewMetric("lastmile_h3_req_connecting", metrics.Trend, metrics.Time),
		reqReceiving:  reg.MustNewMetric("lastmile_h3_req_receiving", metrics.Trend, metrics.Time),
		wtSessions:    reg.MustNewMetric("lastmile_wt_sessions", metrics.Counter),
		wtDuration:    reg.MustNewMetric("lastmile_wt_session_duration", metrics.Trend, metrics.Time),
		wtDatagramRTT: reg.MustNewMetric("lastmile_wt_datagram_rtt", metrics.Trend, metrics.Time),
		wtFailed:      reg.MustNewMetric("lastmile_wt_failed", metrics.Rate),
	}
	return &instance{vu: vu, m: m, sessions: tls.NewLRUClientSessionCache(64)}
}

// instance is one VU's: its kept HTTP/3 connection lives as long as the
// VU, or until close().
type instance struct {
	dialing  dialClock // handshakes of this VU's connections
	vu       modules.VU
	m        *extMetrics
	h3       *http3.Transport
	ins      bool
	sessions tls.ClientSessionCache // shared by fresh connections, for resumption and 0-RTT
}

func (i *instance) Exports() modules.Exports {
	return modules.Exports{Named: map[string]any{
		"http3Get":         i.http3Get,
		"http3Post":        i.http3Post,
		"http3Batch":       i.http3Batch,
		"webtransportEcho": i.webtransportEcho,
		"close":            i.close,
	}}
}

// Params are a call's options.
type Params struct {
	// Insecure skips certificate verification (lab and loopback targets).
	Insecure bool
	// Fresh uses a new connection for this request (a cold start).
	Fresh bool
	// ZeroRTT sends a GET in the first flight of a resumed connection.
	ZeroRTT bool
	// Headers are request header fields.
	Headers map[string]string
}

func params(p map[string]any) Params {
	var out Params
	if v, ok := p["insecure"].(bool); ok {
		out.Insecure = v
	}
	if v, ok := p["fresh"].(bool); ok {
		out.Fresh = v
	}
	if v, ok := p["zeroRTT"].(bool); ok {
		out.ZeroRTT = v
	}
	if h, ok := p["headers"].(map[string]any); ok {
		out.Headers = make(map[string]string, len(h))
		for k, v := range h {
			out.Headers[k] = fmt.Sprint(v)
		}
	}
	return out
}

func (i *instance) tlsConfig(p Params) *tls.Config {
	return &tls.Config{InsecureSkipVerify: p.Insecure, ClientSessionCache: i.sessions} //nolint:gosec // opt-in for test targets
}

func (i *instance) transport(p Params) *http3.Transport {
	if p.Fresh {
		return i.newTransport(p)
	}
	if i.h3 == nil || i.ins != p.Insecure {
		if i.h3 != nil {
			i.h3.Close()
		}
		// The connection is kept across iterations until close() (or the
		// process ends). k6 v2 keeps its iteration events internal, so a
		// script that wants one connection per iteration calls
		// lastmile.close() at its end, or passes fresh.
		i.h3, i.ins = i.newTransport(p), p.Insecure
	}
	return i.h3
}

func (i *instance) newTransport(p Params) *http3.Transport {
	return &http3.Transport{TLSClientConfig: i.tlsConfig(p), Dial: i.dialing.dial}
}

// dialClock times QUIC handshakes, so a request that opened a connection
// reports its connecting time.
type dialClock struct {
	mu    sync.Mutex
	dials int
	last  time.Duration
}

func (d *dialClock) dial(ctx context.Context, addr string, tlsCfg *tls.Config, cfg *quic.Config) (*quic.Conn, error) {
	start := time.Now()
	conn, err := quic.DialAddrEarly(ctx, addr, tlsCfg, cfg)
	if err == nil {
		select {
		case <-conn.HandshakeComplete():
		case <-ctx.Done():
		}
	}
	d.mu.Lock()
	d.dials++
	d.last = time.Since(start)
	d.mu.Unlock()
	return conn, err
}

func (d *dialClock) snapshot() (int, time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.dials, d.last
}

// http3Get sends one GET over HTTP/3 and reports what k6's http.get
// would: status, proto, headers, body size, timings (ms).
func (i *instance) http3Get(url string, p map[string]any) (map[string]any, error) {
	method := http.MethodGet
	if params(p).ZeroRTT {
		method = http3.MethodGet0RTT
	}
	return i.http3Do(method, url, "", p)
}

// http3Post sends one POST over HTTP/3.
func (i *instance) http3Post(url, body string, p map[string]any) (map[string]any, error) {
	return i.http3Do(http.MethodPost, url, body, p)
}

func (i *instance) http3Do(method, url, body string, p map[string]any) (map[string]any, error) {
	state := i.vu.State()
	if state == nil {
		return nil, errors.New("http3: only in the VU context")
	}
	prm := params(p)
	tr := i.transport(prm)
	if prm.Fresh {
		defer tr.Close()
	}
	ctx := i.vu.Context()
	dials0, _ := i.dialing.snapshot()
	start := time.Now()
	var firstByte time.Time
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotFirstResponseByte: func() { firstByte = time.Now() },
	}), method, url, bodyReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range prm.Headers {
		req.Header.Set(k, v)
	}
	resp, err := tr.RoundTrip(req)
	status, proto, size := 0, "", int64(0)
	headers := map[string]any{}
	if err == nil {
		size, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		status, proto = resp.StatusCode, resp.Proto
		for k := range resp.Header {
			headers[k] = resp.Header.Get(k)
		}
	}
	end := time.Now()
	waiting := end.Sub(start)
	if !firstByte.IsZero() {
		waiting = firstByte.Sub(start)
	}
	tags := state.Tags.GetCurrentValues().Tags.With("url", url).With("method", req.Method).
		With("status", fmt.Sprint(status)).With("proto", proto)
	failed := 0.0
	if err != nil || status >= 400 || status == 0 {
		failed = 1
	}
	connecting := time.Duration(0)
	if dials, last := i.dialing.snapshot(); dials != dials0 {
		connecting = last
	}
	i.push(ctx, tags, end, map[*metrics.Metric]float64{
		i.m.reqs: 1, i.m.reqDuration: ms(end.Sub(start)), i.m.reqWaiting: ms(waiting), i.m.reqFailed: failed,
		i.m.reqConnecting: ms(connecting), i.m.reqReceiving: ms(end.Sub(start) - waiting),
	})
	out := map[string]any{"status": status, "proto": proto, "headers": headers, "body_size": size,
		"timings": map[string]any{"duration": ms(end.Sub(start)), "waiting": ms(waiting), "connecting": ms(connecting),
			"receiving": ms(end.Sub(start) - waiting)}}
	if err != nil {
		out["error"] = err.Error()
	}
	return out, nil
}

// http3Batch sends GETs for urls in parallel on the VU's connection, as a
// browser fetches a page's subresources, and returns their results in
// order.
func (i *instance) http3Batch(urls []string, p map[string]any) ([]map[string]any, error) {
	out := make([]map[string]any, len(urls))
	errs := make([]error, len(urls))
	i.transport(params(p)) // open (or reuse) the connection once, before the goroutines
	var wg sync.WaitGroup
	for k, u := range urls {
		wg.Go(func() { out[k], errs[k] = i.http3Do(http.MethodGet, u, "", p) })
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// webtransportEcho opens a session, echoes a bidirectional stream, a
// unidirectional stream and a datagram on it, and closes it.
func (i *instance) webtransportEcho(url string, p map[string]any) (map[string]any, error) {
	state := i.vu.State()
	if state == nil {
		return nil, errors.New("webtransportEcho: only in the VU context")
	}
	prm := params(p)
	ctx, cancel := context.WithTimeout(i.vu.Context(), 15*time.Second)
	defer cancel()
	start := time.Now()
	d := &webtransport.Transport{
		TLSClientConfig: i.tlsConfig(prm),
		QUICConfig:      &quic.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true},
	}
	defer d.Close()
	var rtt time.Duration
	err := func() error {
		_, sess, err := d.Dial(ctx, url, nil)
		if err != nil {
			return err
		}
		defer sess.CloseWithError(0, "")
		str, err := sess.OpenStreamSync(ctx)
		if err != nil {
			return err
		}
		msg := []byte("k6 stream")
		if _, err := str.Write(msg); err != nil {
			return err
		}
		str.Close()
		got, err := io.ReadAll(str)
		if err != nil || string(got) != string(msg) {
			return fmt.Errorf("stream echo %q: %v", got, err)
		}
		ustr, err := sess.OpenUniStreamSync(ctx)
		if err != nil {
			return err
		}
		if _, err := ustr.Write([]byte("k6 uni")); err != nil {
			return err
		}
		ustr.Close()
		back, err := sess.AcceptUniStream(ctx)
		if err != nil {
			return err
		}
		if got, err := io.ReadAll(back); err != nil || string(got) != "k6 uni" {
			return fmt.Errorf("unidirectional echo %q: %v", got, err)
		}
		for {
			t0 := time.Now()
			if err := sess.SendDatagram([]byte("k6 datagram")); err != nil {
				return err
			}
			rctx, rcancel := context.WithTimeout(ctx, 300*time.Millisecond)
			_, err := sess.ReceiveDatagram(rctx)
			rcancel()
			if err == nil {
				rtt = time.Since(t0)
				return nil
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}()
	end := time.Now()
	tags := state.Tags.GetCurrentValues().Tags.With("url", url)
	failed := 0.0
	if err != nil {
		failed = 1
	}
	vals := map[*metrics.Metric]float64{i.m.wtSessions: 1, i.m.wtDuration: ms(end.Sub(start)), i.m.wtFailed: failed}
	if err == nil {
		vals[i.m.wtDatagramRTT] = ms(rtt)
	}
	i.push(i.vu.Context(), tags, end, vals)
	out := map[string]any{"ok": err == nil, "duration": ms(end.Sub(start)), "datagram_rtt": ms(rtt)}
	if err != nil {
		out["error"] = err.Error()
	}
	return out, nil
}

// close ends the VU's kept HTTP/3 connection.
func (i *instance) close() {
	if i.h3 != nil {
		i.h3.Close()
		i.h3 = nil
	}
}

func (i *instance) push(ctx context.Context, tags *metrics.TagSet, t time.Time, vals map[*metrics.Metric]float64) {
	samples := make([]metrics.Sample, 0, len(vals))
	for m, v := range vals {
		samples = append(samples, metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: m, Tags: tags}, Time: t, Value: v})
	}
	metrics.PushIfNotDone(ctx, i.vu.State().Samples, metrics.Samples(samples))
}

func bodyReader(s string) io.Reader {
	if s == "" {
		return nil
	}
	return strings.NewReader(s)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
