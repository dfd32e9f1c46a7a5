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
	"go.k6.io/k6/v2/metrics"
)

// transport is the connection a request goes over: the VU's kept one, or
// a fresh one the caller closes (params fresh, or k6's noConnectionReuse
// option). The kept one lasts until close(), the end of the iteration
// (k6's noVUConnectionReuse option) or the end of the test.
func (i *instance) transport(p Params) (tr *http3.Transport, fresh bool) {
	return keptTransport(i, p, &i.h3, &i.h3Insecure, i.newTransport, func(t *http3.Transport) { t.Close() })
}

// keptTransport returns the kept transport in *slot (opening one if there
// is none, or if it has the other certificate policy), or a fresh one.
func keptTransport[T comparable](i *instance, p Params, slot *T, insecure *bool, open func(Params) T, closeT func(T)) (T, bool) {
	if p.Fresh || i.vu.State().Options.NoConnectionReuse.Bool {
		return open(p), true
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	var none T
	if *slot == none || *insecure != p.Insecure {
		if *slot != none {
			closeT(*slot)
		}
		*slot, *insecure = open(p), p.Insecure
	}
	i.keptUsed = i.vu.Context()
	return *slot, false
}

func (i *instance) newTransport(p Params) *http3.Transport {
	return &http3.Transport{TLSClientConfig: i.tlsConfig(p), Dial: dial}
}

// closeKept closes the VU's kept HTTP/3 and HTTP/1.1 connections if
// closeIt approves of the iteration that last used them (its context).
func (i *instance) closeKept(closeIt func(lastUsed context.Context) bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if (i.h3 == nil && i.h1 == nil) || !closeIt(i.keptUsed) {
		return
	}
	if i.h3 != nil {
		i.h3.Close()
		i.h3 = nil
	}
	if i.h1 != nil {
		i.h1.CloseIdleConnections()
		i.h1 = nil
	}
}

// dialRecord is how a request learns that it opened its connection: the
// http3 transport dials with the context of the request that needed the
// connection, and the dialer fills in the record found there. Other
// requests on that connection (a batch's) find theirs empty.
type dialRecord struct {
	conn      *quic.Conn
	handshake time.Duration // set before done closes
	done      chan struct{} // closed when the handshake ends
}

type dialRecordKey struct{}

// dial returns as soon as the connection can carry 0-RTT data (a resumed
// connection's GET then goes in the first flight) and times the handshake
// on the side.
func dial(ctx context.Context, addr string, tlsCfg *tls.Config, cfg *quic.Config) (*quic.Conn, error) {
	start := time.Now()
	conn, err := quic.DialAddrEarly(ctx, addr, tlsCfg, cfg)
	rec, _ := ctx.Value(dialRecordKey{}).(*dialRecord)
	if err != nil || rec == nil {
		return conn, err
	}
	rec.conn, rec.done = conn, make(chan struct{})
	go func() {
		defer close(rec.done)
		select {
		case <-conn.HandshakeComplete():
			rec.handshake = time.Since(start)
		case <-conn.Context().Done():
		}
	}()
	return conn, nil
}

// http3Get sends one GET over HTTP/3 and reports what k6's http.get
// would: status, proto, headers, body size, timings (ms).
func (i *instance) http3Get(url string, p map[string]any) (map[string]any, error) {
	return i.http3Do(http.MethodGet, url, "", p)
}

// http3Post sends one POST over HTTP/3.
func (i *instance) http3Post(url, body string, p map[string]any) (map[string]any, error) {
	return i.http3Do(http.MethodPost, url, body, p)
}

func (i *instance) http3Do(method, url, body string, p map[string]any) (map[string]any, error) {
	if i.vu.State() == nil {
		return nil, errors.New("http3: only in the VU context")
	}
	prm, err := params(p)
	if err != nil {
		return nil, err
	}
	if prm.ZeroRTT && method == http.MethodGet {
		method = http3.MethodGet0RTT
	}
	tr, fresh := i.transport(prm)
	if fresh {
		defer tr.Close()
	}
	ctx := i.vu.Context()
	rec := new(dialRecord)
	start := time.Now()
	var firstByte time.Time
	req, err := newRequest(context.WithValue(ctx, dialRecordKey{}, rec), &httptrace.ClientTrace{
		GotFirstResponseByte: func() { firstByte = time.Now() },
	}, method, url, body, prm.Headers)
	if err != nil {
		return nil, err
	}
	r, err := readResponse(tr.RoundTrip(req))
	status, proto := r.status, r.proto
	end := time.Now()
	waiting := end.Sub(start)
	if !firstByte.IsZero() {
		waiting = firstByte.Sub(start)
	}
	failed := 0.0
	if r.failed(err) {
		failed = 1
	}
	// Connecting is the handshake of the connection this request opened
	// (0 on one it found open); with 0-RTT the response can come first.
	connecting, zeroRTT := time.Duration(0), false
	if rec.conn != nil {
		select {
		case <-rec.done:
			connecting, zeroRTT = rec.handshake, rec.conn.ConnectionState().Used0RTT
		case <-ctx.Done():
		}
	}
	tags := i.tags("url", url, "method", req.Method, "status", fmt.Sprint(status), "proto", proto)
	i.push(ctx, tags, end, map[*metrics.Metric]float64{
		i.m.reqs: 1, i.m.reqDuration: ms(end.Sub(start)), i.m.reqWaiting: ms(waiting), i.m.reqFailed: failed,
		i.m.reqConnecting: ms(connecting), i.m.reqReceiving: ms(end.Sub(start) - waiting),
	})
	out := r.result(err, map[string]any{"duration": ms(end.Sub(start)), "waiting": ms(waiting), "connecting": ms(connecting),
		"receiving": ms(end.Sub(start) - waiting)})
	out["zero_rtt"] = zeroRTT
	return out, nil
}

// newRequest builds a request traced by trace, with the call's headers.
func newRequest(ctx context.Context, trace *httptrace.ClientTrace, method, url, body string, headers map[string]string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), method, url, bodyReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return req, nil
}

// response is what a script gets back of a response.
type response struct {
	status  int
	proto   string
	headers map[string]any
	size    int64
}

// readResponse drains resp's body (counting it) after a round trip that
// returned err.
func readResponse(resp *http.Response, err error) (response, error) {
	r := response{headers: map[string]any{}}
	if err != nil {
		return r, err
	}
	r.size, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	r.status, r.proto = resp.StatusCode, resp.Proto
	for k := range resp.Header {
		r.headers[k] = resp.Header.Get(k)
	}
	return r, err
}

// result is the object a request call returns, shaped like k6's
// response: status, proto, headers, body_size, timings (ms), error.
func (r response) result(err error, timings map[string]any) map[string]any {
	out := map[string]any{"status": r.status, "proto": r.proto, "headers": r.headers, "body_size": r.size, "timings": timings}
	if err != nil {
		out["error"] = err.Error()
	}
	return out
}

// failed is k6's http_req_failed rule: no response, or 4xx/5xx.
func (r response) failed(err error) bool { return err != nil || r.status == 0 || r.status >= 400 }

// http3Batch sends GETs for urls in parallel on the VU's connection, as a
// browser fetches a page's subresources, and returns their results in
// order.
func (i *instance) http3Batch(urls []string, p map[string]any) ([]map[string]any, error) {
	if i.vu.State() == nil {
		return nil, errors.New("http3: only in the VU context")
	}
	prm, err := params(p)
	if err != nil {
		return nil, err
	}
	// Set up (or reuse) the kept transport once, before the goroutines.
	if tr, fresh := i.transport(prm); fresh {
		tr.Close()
	}
	out := make([]map[string]any, len(urls))
	errs := make([]error, len(urls))
	var wg sync.WaitGroup
	for k, u := range urls {
		wg.Go(func() { out[k], errs[k] = i.http3Do(http.MethodGet, u, "", p) })
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// close ends what the VU holds open: its kept HTTP/3 and HTTP/1.1
// connections and its WebTransport sessions.
func (i *instance) close() {
	i.closeKept(func(context.Context) bool { return true })
	i.closeSessions(i.vu.Context(), everySession)
}

func bodyReader(s string) io.Reader {
	if s == "" {
		return nil
	}
	return strings.NewReader(s)
}
