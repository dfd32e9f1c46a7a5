package xk6lastmile

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"time"

	"go.k6.io/k6/v2/metrics"
)

// http1Get sends one GET over HTTP/1.1: over TLS without h2 in ALPN, or
// in clear text. k6's own client cannot be told to use HTTP/1.1 while it
// also speaks HTTP/2 in the same run (GODEBUG=http2client=0 turns HTTP/2
// off for the whole process), and a cache-hit mix needs both. Its timings
// go to k6's own http_req_* metrics, tagged proto HTTP/1.1, beside the
// requests of k6's client.
func (i *instance) http1Get(url string, p map[string]any) (map[string]any, error) {
	state := i.vu.State()
	if state == nil {
		return nil, errors.New("http1: only in the VU context")
	}
	prm, err := params(p)
	if err != nil {
		return nil, err
	}
	tr, fresh := i.h1Transport(prm)
	if fresh {
		defer tr.CloseIdleConnections()
	}
	ctx := i.vu.Context()
	var t struct {
		getConn, connStart, connDone, tlsStart, tlsDone, gotConn, wrote, firstByte time.Time
	}
	req, err := newRequest(ctx, &httptrace.ClientTrace{
		GetConn:              func(string) { t.getConn = time.Now() },
		ConnectStart:         func(string, string) { t.connStart = time.Now() },
		ConnectDone:          func(string, string, error) { t.connDone = time.Now() },
		TLSHandshakeStart:    func() { t.tlsStart = time.Now() },
		TLSHandshakeDone:     func(tls.ConnectionState, error) { t.tlsDone = time.Now() },
		GotConn:              func(httptrace.GotConnInfo) { t.gotConn = time.Now() },
		WroteRequest:         func(httptrace.WroteRequestInfo) { t.wrote = time.Now() },
		GotFirstResponseByte: func() { t.firstByte = time.Now() },
	}, http.MethodGet, url, "", prm.Headers)
	if err != nil {
		return nil, err
	}
	r, err := readResponse(tr.RoundTrip(req))
	end := time.Now()

	// k6's phases: blocked until the connection is being made (or found),
	// connecting and TLS, then sending, waiting and receiving, which make
	// up the duration.
	span := func(from, to time.Time) time.Duration {
		if from.IsZero() || to.IsZero() || to.Before(from) {
			return 0
		}
		return to.Sub(from)
	}
	blockedEnd := t.connStart
	if blockedEnd.IsZero() {
		blockedEnd = t.gotConn
	}
	sending, waiting, receiving := span(t.gotConn, t.wrote), span(t.wrote, t.firstByte), span(t.firstByte, end)
	duration := sending + waiting + receiving
	failed, expected := 0.0, "true"
	if r.failed(err) {
		failed, expected = 1, "false"
	}
	bm := state.BuiltinMetrics
	timings := map[*metrics.Metric]time.Duration{
		bm.HTTPReqDuration: duration, bm.HTTPReqBlocked: span(t.getConn, blockedEnd),
		bm.HTTPReqConnecting: span(t.connStart, t.connDone), bm.HTTPReqTLSHandshaking: span(t.tlsStart, t.tlsDone),
		bm.HTTPReqSending: sending, bm.HTTPReqWaiting: waiting, bm.HTTPReqReceiving: receiving,
	}
	vals := map[*metrics.Metric]float64{bm.HTTPReqs: 1, bm.HTTPReqFailed: failed}
	for m, d := range timings {
		vals[m] = ms(d)
	}
	tags := i.tags("name", url, "url", url, "method", req.Method, "status", fmt.Sprint(r.status), "proto", r.proto,
		"expected_response", expected)
	i.push(ctx, tags, end, vals)
	return r.result(err, map[string]any{
		"duration": ms(duration), "blocked": vals[bm.HTTPReqBlocked], "connecting": vals[bm.HTTPReqConnecting],
		"tls_handshaking": vals[bm.HTTPReqTLSHandshaking], "sending": ms(sending), "waiting": ms(waiting), "receiving": ms(receiving),
	}), nil
}

// h1Transport is the VU's kept HTTP/1.1 transport, or a fresh one, by
// the rules of transport's for HTTP/3.
func (i *instance) h1Transport(p Params) (tr *http.Transport, fresh bool) {
	return keptTransport(i, p, &i.h1, &i.h1Insecure, i.newH1Transport, (*http.Transport).CloseIdleConnections)
}

func (i *instance) newH1Transport(p Params) *http.Transport {
	return &http.Transport{
		TLSClientConfig: i.tlsConfig(p),
		// A non-nil empty map keeps h2 out of ALPN: HTTP/1.1 only.
		TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{},
	}
}
