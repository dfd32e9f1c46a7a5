package quichook

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/qlogwriter"
	"github.com/quic-go/quic-go/qlogwriter/jsontext"

	"github.com/lastmile-edge/lastmile/internal/congestion"
	"github.com/lastmile-edge/lastmile/internal/congestion/bbr"
)

// eventLog is a qlogwriter.Recorder that keeps the events as JSON.
type eventLog struct {
	events []string // "name data"
	closed bool
}

func (l *eventLog) RecordEvent(ev qlogwriter.Event) {
	var buf bytes.Buffer
	if err := ev.Encode(jsontext.NewEncoder(&buf), time.Time{}); err != nil {
		panic(err)
	}
	l.events = append(l.events, ev.Name()+" "+strings.TrimSpace(buf.String()))
}

func (l *eventLog) Close() error { l.closed = true; return nil }

// A state change is a congestion_state_updated event and a model event; a
// model change (a Careful Resume phase too) only the model event; cwnd
// moving less than an eighth nothing; once the connection is done,
// nothing at all.
func TestModelTraceRecordsChanges(t *testing.T) {
	log := &eventLog{}
	tr := &modelTrace{rec: log}
	m := congestion.Model{State: "startup", CongestionWindow: 40000, PacingRate: 1e6}
	tr.record(m, triggerRestart)
	m.CongestionWindow = 44000 // +10%: noise
	tr.record(m, triggerAck)
	m.State, m.MaxBandwidth, m.MinRTT = "drain", 6_250_000, 9500*time.Microsecond
	tr.record(m, triggerAck)
	m.InflightShortterm = 30000
	tr.record(m, triggerLoss)
	m.Resume = "jumped"
	tr.record(m, triggerAck)
	tr.close()
	m.State = "probe_bw_down"
	tr.record(m, triggerAck)
	want := []string{
		`recovery:congestion_state_updated {"new":"startup","trigger":"restart_from_idle"}`,
		`lastmile:congestion_model_updated {"state":"startup","trigger":"restart_from_idle","in_recovery":false,"congestion_window":40000,"pacing_rate":8000000,"max_bw":0,"bw":0,"extra_acked":0,"random_loss":0}`,
		`recovery:congestion_state_updated {"old":"startup","new":"drain","trigger":"ack"}`,
		`lastmile:congestion_model_updated {"state":"drain","trigger":"ack","in_recovery":false,"congestion_window":44000,"pacing_rate":8000000,"max_bw":50000000,"bw":0,"min_rtt":9.5,"extra_acked":0,"random_loss":0}`,
		`lastmile:congestion_model_updated {"state":"drain","trigger":"loss","in_recovery":false,"congestion_window":44000,"pacing_rate":8000000,"max_bw":50000000,"bw":0,"min_rtt":9.5,"inflight_shortterm":30000,"extra_acked":0,"random_loss":0}`,
		`lastmile:congestion_model_updated {"state":"drain","trigger":"ack","in_recovery":false,"congestion_window":44000,"pacing_rate":8000000,"max_bw":50000000,"bw":0,"min_rtt":9.5,"inflight_shortterm":30000,"extra_acked":0,"random_loss":0,"careful_resume":"jumped"}`,
	}
	if strings.Join(log.events, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(log.events, "\n"), strings.Join(want, "\n"))
	}
	if !log.closed {
		t.Error("recorder not closed")
	}
}

// closingBuffer is a trace file in memory.
type closingBuffer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	closed chan struct{}
}

func (b *closingBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *closingBuffer) Close() error { close(b.closed); return nil }

// A real connection on lastmile's BBR, traced by quic-go's qlog writer:
// the trace gets the controller's states, a chain from Startup (a short
// transfer may end in it), and its model, and is closed (so flushed) when
// the connection ends, although the controller's producer was added from
// outside quic-go.
func TestRealConnectionTracesBBR(t *testing.T) {
	cc := New("bbr", bbr.New, false)
	file := &closingBuffer{closed: make(chan struct{})}
	srv := &quic.Transport{Conn: listenLoopback(t), ConnContext: func(ctx context.Context, _ *quic.ClientInfo) (context.Context, error) {
		return cc.Context(ctx), nil
	}}
	t.Cleanup(func() { srv.Close() })
	ln, err := srv.Listen(selfSigned(t), &quic.Config{Tracer: func(ctx context.Context, isClient bool, id quic.ConnectionID) qlogwriter.Trace {
		seq := qlogwriter.NewConnectionFileSeq(file, isClient, id, nil)
		go seq.Run()
		cc.TraceTo(ctx, seq)
		return seq
	}})
	if err != nil {
		t.Fatal(err)
	}
	proxy := startLossyProxy(t, srv.Conn.LocalAddr().(*net.UDPAddr), 10, 20)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const size = 512 << 10
	go func() {
		conn, err := ln.Accept(ctx)
		if err != nil {
			return
		}
		if str, err := conn.OpenStream(); err == nil {
			str.Write(make([]byte, size))
			str.Close()
		}
	}()
	client, err := quic.DialAddr(ctx, proxy.conn.LocalAddr().String(), clientTLS(), &quic.Config{})
	if err != nil {
		t.Fatal(err)
	}
	str, err := client.AcceptStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := io.Copy(io.Discard, str); err != nil || n != size {
		t.Fatalf("read %d of %d bytes: %v", n, size, err)
	}
	client.CloseWithError(0, "")
	select {
	case <-file.closed:
	case <-ctx.Done():
		t.Fatal("the trace was never closed")
	}
	file.mu.Lock()
	defer file.mu.Unlock()
	var states []string
	models := 0
	for _, r := range bytes.Split(file.buf.Bytes(), []byte{qlogwriter.RecordSeparator}) {
		var rec struct {
			Name string
			Data struct {
				Old, New, State string
				MaxBw           int64 `json:"max_bw"`
			}
		}
		if len(bytes.TrimSpace(r)) == 0 || json.Unmarshal(r, &rec) != nil {
			continue
		}
		switch rec.Name {
		case "recovery:congestion_state_updated":
			// Upstream quic-go's NewReno traces its own states, without "old".
			if !upstreamQuicGo && len(states) > 0 && rec.Data.Old != states[len(states)-1] {
				t.Errorf("state %q follows %q, event says from %q", rec.Data.New, states[len(states)-1], rec.Data.Old)
			}
			states = append(states, rec.Data.New)
		case "lastmile:congestion_model_updated":
			if rec.Data.MaxBw > 0 {
				models++
			}
		}
	}
	if upstreamQuicGo {
		checkUpstream(t, cc)
		if models != 0 {
			t.Errorf("upstream quic-go: %d model events of a controller that was never installed", models)
		}
		return
	}
	if len(states) == 0 || states[0] != "startup" || models == 0 {
		t.Errorf("states %v, %d model events with a bandwidth estimate", states, models)
	}
}
