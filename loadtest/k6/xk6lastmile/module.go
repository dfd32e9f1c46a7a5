// Package xk6lastmile is the k6 extension k6/x/lastmile: HTTP/3 requests
// and WebTransport sessions from k6 scripts, with metrics named and tagged
// like k6's own http_req_* and ws_* ones.
//
// One file per concern: http3.go (requests), webtransport.go (sessions and
// streams), lifecycle.go (closing what a VU opened at the end of its
// iteration or of the test).
package xk6lastmile

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/quic-go/quic-go/http3"
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

	wtSessions, wtConnecting, wtDuration, wtFailed, wtStreams *metrics.Metric
	wtDatagramsSent, wtDatagramsReceived, wtDatagramRTT       *metrics.Metric
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
		reqConnecting:       reg.MustNewMetric("lastmile_h3_req_connecting", metrics.Trend, metrics.Time),
		reqReceiving:        reg.MustNewMetric("lastmile_h3_req_receiving", metrics.Trend, metrics.Time),
		wtSessions:          reg.MustNewMetric("lastmile_wt_sessions", metrics.Counter),
		wtConnecting:        reg.MustNewMetric("lastmile_wt_connecting", metrics.Trend, metrics.Time),
		wtDuration:          reg.MustNewMetric("lastmile_wt_session_duration", metrics.Trend, metrics.Time),
		wtFailed:            reg.MustNewMetric("lastmile_wt_failed", metrics.Rate),
		wtStreams:           reg.MustNewMetric("lastmile_wt_streams", metrics.Counter),
		wtDatagramsSent:     reg.MustNewMetric("lastmile_wt_datagrams_sent", metrics.Counter),
		wtDatagramsReceived: reg.MustNewMetric("lastmile_wt_datagrams_received", metrics.Counter),
		wtDatagramRTT:       reg.MustNewMetric("lastmile_wt_datagram_rtt", metrics.Trend, metrics.Time),
	}
	i := &instance{vu: vu, m: m, tickets: tls.NewLRUClientSessionCache(64), sessions: map[*Session]struct{}{}}
	i.watchLifecycle()
	return i
}

// instance is one VU's. Its kept HTTP/3 connection and its WebTransport
// sessions are closed by the script, or at the end of the iteration or of
// the test (lifecycle.go).
type instance struct {
	vu      modules.VU
	m       *extMetrics
	tickets tls.ClientSessionCache // shared by all connections, for resumption and 0-RTT

	mu         sync.Mutex // the script's goroutine and the lifecycle's
	h3         *http3.Transport
	h3Insecure bool // h3 skips certificate verification
	h1         *http.Transport
	h1Insecure bool
	keptUsed   context.Context // the iteration that last used h3 or h1
	sessions   map[*Session]struct{}
}

func (i *instance) Exports() modules.Exports {
	return modules.Exports{Named: map[string]any{
		"http3Get":         i.http3Get,
		"http3Post":        i.http3Post,
		"http3Batch":       i.http3Batch,
		"http1Get":         i.http1Get,
		"webtransport":     i.webtransport,
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
	// Timeout bounds each blocking WebTransport call (ms or "10s").
	Timeout time.Duration
	// CloseAt is when a WebTransport session the script left open is
	// closed: at the end of the "iteration" or of the "vu".
	CloseAt closeAt
}

type closeAt int

const (
	closeAtIteration closeAt = iota
	closeAtVU
)

// defaultTimeout bounds a WebTransport call that names none: long enough
// for a handshake over the slowest profile in the lab (2.3 s RTT tails),
// short enough that a dead peer does not hold a VU for a whole stage.
const defaultTimeout = 10 * time.Second

func params(p map[string]any) (Params, error) {
	out := Params{Timeout: defaultTimeout}
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
	switch v := p["timeout"].(type) {
	case nil:
	case string:
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return out, fmt.Errorf("timeout %q: want a positive duration such as \"5s\"", v)
		}
		out.Timeout = d
	case int64, float64:
		n, _ := strconv.ParseFloat(fmt.Sprint(v), 64)
		if n <= 0 {
			return out, fmt.Errorf("timeout %v: want a positive number of milliseconds", v)
		}
		out.Timeout = time.Duration(n * float64(time.Millisecond))
	default:
		return out, fmt.Errorf("timeout: want milliseconds or a duration string, got %T", v)
	}
	switch p["closeAt"] {
	case nil, "iteration":
	case "vu":
		out.CloseAt = closeAtVU
	default:
		return out, fmt.Errorf("closeAt %q: want \"iteration\" or \"vu\"", p["closeAt"])
	}
	return out, nil
}

func (i *instance) tlsConfig(p Params) *tls.Config {
	return &tls.Config{InsecureSkipVerify: p.Insecure, ClientSessionCache: i.tickets} //nolint:gosec // opt-in for test targets
}

// push sends samples to k6, unless ctx (the iteration's) has ended.
func (i *instance) push(ctx context.Context, tags *metrics.TagSet, t time.Time, vals map[*metrics.Metric]float64) {
	state := i.vu.State()
	if state == nil {
		return
	}
	samples := make([]metrics.Sample, 0, len(vals))
	for m, v := range vals {
		samples = append(samples, metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: m, Tags: tags}, Time: t, Value: v})
	}
	metrics.PushIfNotDone(ctx, state.Samples, metrics.Samples(samples))
}

// tags are the VU's current tags (scenario, group...) with the call's own.
func (i *instance) tags(kv ...string) *metrics.TagSet {
	tags := i.vu.State().Tags.GetCurrentValues().Tags
	for k := 0; k+1 < len(kv); k += 2 {
		tags = tags.With(kv[k], kv[k+1])
	}
	return tags
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
