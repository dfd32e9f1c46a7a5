package quichook

import (
	"context"
	"sync"
	"time"

	"github.com/quic-go/quic-go/qlogwriter"
	"github.com/quic-go/quic-go/qlogwriter/jsontext"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// The controller's state in the connection's qlog. quic-go's trace has the
// window (recovery:metrics_updated) but not why it is what it is; so the
// edge adds, from outside quic-go, a recovery:congestion_state_updated
// event (qlog's, with old, new and trigger) at each change of the
// controller's state and a lastmile:congestion_model_updated event (BBR's
// max_bw, bw_shortterm, min_rtt, inflight_longterm and _shortterm, cwnd,
// pacing rate) when the model changes. The trace is quic-go's
// qlogwriter.Trace, which takes any number of producers: the edge hands
// it to the connection's Conn when quic-go asks for the connection's
// tracer (with the context quic.Transport.ConnContext returned), before the
// connection's first packet, so no patch of quic-go is needed.

// TraceTo writes c's controller events into trace until ctx (the
// connection's) is done. It must be called before the connection's first
// packet; later controllers (migration) write to the same trace.
func (c *Conn) TraceTo(ctx context.Context, trace qlogwriter.Trace) {
	rec := trace.AddProducer()
	if rec == nil {
		return // the trace is closed already
	}
	t := &modelTrace{rec: rec}
	context.AfterFunc(ctx, t.close)
	c.mu.Lock()
	c.trace = t
	c.mu.Unlock()
}

// modelTrace records one connection's controller events. Its recorder is
// closed when the connection ends; quic-go's Recorder must not record
// concurrently with or after Close, hence the lock.
type modelTrace struct {
	mu   sync.Mutex
	rec  qlogwriter.Recorder // nil once closed
	last congestion.Model
	any  bool // last holds a recorded model
}

func (t *modelTrace) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rec != nil {
		_ = t.rec.Close()
		t.rec = nil
	}
}

// Triggers of the events: what the controller was told just before.
const (
	triggerAck      = "ack"
	triggerLoss     = "loss" // an ACK or loss timer that declared packets lost
	triggerPTO      = "pto"
	triggerSpurious = "spurious_loss"
	// triggerRestart is the first packet sent with nothing in flight: a
	// kept connection's next page (or a new connection's first packet).
	triggerRestart = "restart_from_idle"
)

// record writes m if it differs from the last model recorded by more than
// noise: any change of the state, recovery, bandwidth estimates, min RTT
// or inflight bounds, or a change of cwnd or pacing rate by an eighth.
// cwnd moves on nearly every ACK; quic-go's metrics_updated has each value.
func (t *modelTrace) record(m congestion.Model, trigger string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rec == nil || (t.any && !modelChanged(t.last, m)) {
		return
	}
	if !t.any || m.State != t.last.State {
		t.rec.RecordEvent(stateUpdated{old: t.last.State, new: m.State, trigger: trigger})
	}
	t.rec.RecordEvent(modelUpdated{m: m, trigger: trigger})
	t.last, t.any = m, true
}

func modelChanged(a, b congestion.Model) bool {
	return a.State != b.State || a.InRecovery != b.InRecovery || a.Resume != b.Resume ||
		a.MaxBandwidth != b.MaxBandwidth || a.BandwidthShortterm != b.BandwidthShortterm ||
		a.MinRTT != b.MinRTT ||
		a.InflightLongterm != b.InflightLongterm || a.InflightShortterm != b.InflightShortterm ||
		movedAnEighth(a.CongestionWindow, b.CongestionWindow) || movedAnEighth(a.PacingRate, b.PacingRate)
}

func movedAnEighth(a, b int64) bool {
	d := a - b
	return d*8 > a || -d*8 > a
}

// modelFromInfo is the model of a controller that reports only Info
// (quic-go's own NewReno and CUBIC senders).
func modelFromInfo(i wireInfo) congestion.Model {
	return congestion.Model{
		State:            i.State,
		InRecovery:       i.InRecovery,
		CongestionWindow: i.CongestionWindow,
		PacingRate:       i.PacingRate,
		MaxBandwidth:     i.BottleneckBandwidth,
		Bandwidth:        i.BottleneckBandwidth,
		MinRTT:           i.MinRTT,
	}
}

// stateUpdated is qlog's recovery:congestion_state_updated.
type stateUpdated struct{ old, new, trigger string }

func (stateUpdated) Name() string { return "recovery:congestion_state_updated" }

func (e stateUpdated) Encode(enc *jsontext.Encoder, _ time.Time) error {
	w := tokenWriter{enc: enc}
	w.token(jsontext.BeginObject)
	if e.old != "" {
		w.str("old", e.old)
	}
	w.str("new", e.new)
	w.str("trigger", e.trigger)
	w.token(jsontext.EndObject)
	return w.err
}

// modelUpdated is lastmile:congestion_model_updated. Rates are in bits
// per second and RTTs in milliseconds, as qlog's metrics_updated has them;
// unset bounds are left out.
type modelUpdated struct {
	m       congestion.Model
	trigger string
}

func (modelUpdated) Name() string { return "lastmile:congestion_model_updated" }

func (e modelUpdated) Encode(enc *jsontext.Encoder, _ time.Time) error {
	m := &e.m
	w := tokenWriter{enc: enc}
	w.token(jsontext.BeginObject)
	w.str("state", m.State)
	w.str("trigger", e.trigger)
	w.key("in_recovery")
	w.token(jsontext.Bool(m.InRecovery))
	w.uint("congestion_window", m.CongestionWindow)
	w.uint("pacing_rate", 8*m.PacingRate)
	w.uint("max_bw", 8*m.MaxBandwidth)
	w.uint("bw", 8*m.Bandwidth)
	if m.BandwidthShortterm > 0 {
		w.uint("bw_shortterm", 8*m.BandwidthShortterm)
	}
	if m.MinRTT > 0 {
		w.key("min_rtt")
		w.token(jsontext.Float(milliseconds(m.MinRTT)))
	}
	if m.InflightLongterm > 0 {
		w.uint("inflight_longterm", m.InflightLongterm)
	}
	if m.InflightShortterm > 0 {
		w.uint("inflight_shortterm", m.InflightShortterm)
	}
	w.uint("extra_acked", m.ExtraAcked)
	w.key("random_loss")
	w.token(jsontext.Float(m.RandomLoss))
	if m.LossRoundMinRTT > 0 {
		w.key("loss_round_min_rtt")
		w.token(jsontext.Float(milliseconds(m.LossRoundMinRTT)))
		w.key("loss_round_loss")
		w.token(jsontext.Float(m.LossRoundLoss))
	}
	if m.Resume != "" {
		w.str("careful_resume", m.Resume)
	}
	w.token(jsontext.EndObject)
	return w.err
}

func milliseconds(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// tokenWriter keeps the first error of a run of tokens.
type tokenWriter struct {
	enc *jsontext.Encoder
	err error
}

func (w *tokenWriter) token(t jsontext.Token) {
	if w.err == nil {
		w.err = w.enc.WriteToken(t)
	}
}

func (w *tokenWriter) key(k string) { w.token(jsontext.String(k)) }

func (w *tokenWriter) str(k, v string) {
	w.key(k)
	w.token(jsontext.String(v))
}

func (w *tokenWriter) uint(k string, v int64) {
	w.key(k)
	w.token(jsontext.Uint(uint64(max(v, 0))))
}
