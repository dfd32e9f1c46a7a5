package qlogstat

import (
	"context"
	"crypto/tls"
	"io"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/qlog"

	"github.com/lastmile-edge/lastmile/internal/testcert"
)

// A real quic-go connection traced by quic-go's own qlog writer: the
// client sends two pages of 16 requests, the server answers each with
// 10 KB; the sender's trace yields both pages with their bytes.
func TestReadsRealTrace(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("QLOGDIR", dir)
	ln, err := quic.ListenAddr("127.0.0.1:0", serverTLS(t), &quic.Config{Tracer: qlog.DefaultConnectionTracer})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const answer = 10_000
	served := make(chan error, 1)
	go func() {
		conn, err := ln.Accept(context.Background())
		if err != nil {
			served <- err
			return
		}
		for range 2 * RequestsPerPage {
			str, err := conn.AcceptStream(context.Background())
			if err != nil {
				served <- err
				return
			}
			if _, err := io.ReadAll(str); err != nil {
				served <- err
				return
			}
			if _, err := str.Write(make([]byte, answer)); err != nil {
				served <- err
				return
			}
			str.Close()
		}
		<-conn.Context().Done() // the client closes once it read everything
		served <- nil
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := quic.DialAddr(ctx, ln.Addr().String(), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"lab"}}, &quic.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		var strs []*quic.Stream
		for range RequestsPerPage {
			str, err := conn.OpenStreamSync(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := str.Write([]byte("GET")); err != nil {
				t.Fatal(err)
			}
			str.Close()
			strs = append(strs, str)
		}
		for _, str := range strs {
			if n, err := io.Copy(io.Discard, str); err != nil || n != answer {
				t.Fatalf("read %d bytes: %v", n, err)
			}
		}
	}
	conn.CloseWithError(0, "")
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	ln.Close() // flushes the server's trace
	var traces map[string][]Page
	deadline := time.Now().Add(5 * time.Second)
	for {
		if traces, err = ReadDir(dir); err != nil {
			t.Fatal(err)
		}
		if len(traces) == 1 && complete(traces) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // the trace writer drains in its own goroutine
	}
	if len(traces) != 1 {
		t.Fatalf("%d server traces in %s", len(traces), dir)
	}
	for name, pages := range traces {
		if !strings.HasSuffix(name, "_server.sqlog") {
			t.Errorf("trace %s", name)
		}
		if len(pages) != 2 {
			t.Fatalf("%d pages, want 2: %+v", len(pages), pages)
		}
		for _, p := range pages {
			if p.StreamBytes < RequestsPerPage*answer {
				t.Errorf("page %d: %d stream bytes, want at least %d", p.Index, p.StreamBytes, RequestsPerPage*answer)
			}
			if p.CwndAtStart <= 0 || p.BytesPerRTT <= 0 {
				t.Errorf("page %d: cwnd %d, bytes per RTT %.0f", p.Index, p.CwndAtStart, p.BytesPerRTT)
			}
			if p.Packets == 0 || p.WireBytes < p.StreamBytes+int64(p.Packets)*ipv4UDPHeader {
				t.Errorf("page %d: %d wire bytes in %d packets for %d stream bytes", p.Index, p.WireBytes, p.Packets, p.StreamBytes)
			}
		}
		if pages[1].SRTTAtStart <= 0 {
			t.Errorf("the second page started without an RTT sample")
		}
	}
}

func complete(traces map[string][]Page) bool {
	for _, pages := range traces {
		return len(pages) == 2 && pages[1].StreamBytes >= RequestsPerPage*10_000
	}
	return false
}

// Records split on the JSON-SEQ separator; losses, probe timeouts and
// spurious losses go to the page being sent when they happen.
func TestCountsLossEventsPerPage(t *testing.T) {
	pages := readRecords(t,
		`{"qlog_version":"0.3"}`,
		`{"time":1,"name":"recovery:metrics_updated","data":{"congestion_window":40000,"smoothed_rtt":100}}`,
		`{"time":2,"name":"transport:packet_sent","data":{"frames":[{"frame_type":"stream","stream_id":0,"length":1000}]}}`,
		`{"time":3,"name":"recovery:packet_lost","data":{"trigger":"time_threshold"}}`,
		`{"time":4,"name":"recovery:loss_timer_updated","data":{"event_type":"expired","timer_type":"pto"}}`,
		`{"time":5,"name":"recovery:metrics_updated","data":{"congestion_window":28000}}`,
		`{"time":302,"name":"transport:packet_sent","data":{"frames":[{"frame_type":"stream","stream_id":2,"length":50},{"frame_type":"stream","stream_id":64,"length":3000}]}}`,
		`{"time":303,"name":"recovery:packet_lost","data":{"header":{"packet_type":"1RTT","packet_number":7},"trigger":"reordering_threshold"}}`,
		`{"time":304,"name":"recovery:spurious_loss","data":{"packet_number":7}}`,
	)
	if len(pages) != 2 {
		t.Fatalf("%d pages: %+v", len(pages), pages)
	}
	p0, p1 := pages[0], pages[1]
	if p0.CwndAtStart != 40000 || p0.SRTTAtStart != 100*time.Millisecond || p0.StreamBytes != 1000 ||
		p0.Lost["time_threshold"] != 1 || p0.PTOs != 1 {
		t.Errorf("page 0: %+v", p0)
	}
	if p1.CwndAtStart != 28000 || p1.StreamBytes != 3000 || p1.Lost["reordering_threshold"] != 1 || p1.Spurious != 1 ||
		p1.SpuriousBy["reordering_threshold"] != 1 {
		t.Errorf("page 1: %+v", p1)
	}
}

// A new connection's page can begin before the first RTT sample (on
// lte-india-congested the handshake's probe timeouts retired the packets
// whose ACKs would have given one): the page's round trips are then
// counted in the first smoothed RTT the trace reports, not in none (which
// read the whole page as sent in one round trip).
func TestPageBeforeFirstRTTSample(t *testing.T) {
	pages := readRecords(t,
		`{"time":1,"name":"recovery:metrics_updated","data":{"congestion_window":5120}}`,
		`{"time":677,"name":"transport:packet_sent","data":{"frames":[{"frame_type":"stream","stream_id":0,"length":40000}]}}`,
		`{"time":1065,"name":"recovery:metrics_updated","data":{"congestion_window":42000,"smoothed_rtt":400}}`,
		`{"time":1200,"name":"recovery:metrics_updated","data":{"smoothed_rtt":500}}`,
		`{"time":2277,"name":"transport:packet_sent","data":{"frames":[{"frame_type":"stream","stream_id":60,"length":40000}]}}`,
	)
	if len(pages) != 1 {
		t.Fatalf("%d pages: %+v", len(pages), pages)
	}
	p := pages[0]
	if p.CwndAtStart != 5120 || p.SRTTAtStart != 400*time.Millisecond || p.Duration != 1600*time.Millisecond || p.BytesPerRTT != 20000 {
		t.Errorf("page: %+v", p)
	}
}

// readRecords reads a trace made of the given JSON-SEQ records.
func readRecords(t *testing.T, records ...string) []Page {
	t.Helper()
	pages, err := Read(strings.NewReader("\x1e" + strings.Join(records, "\n\x1e") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

func serverTLS(t *testing.T) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{testcert.Write(t).KeyPair}, NextProtos: []string{"lab"}}
}

// A trace still being written ends in a partial record: what precedes it
// counts; a broken record in the middle is an error.
func TestTruncatedTrace(t *testing.T) {
	page := `{"time":2,"name":"transport:packet_sent","data":{"frames":[{"frame_type":"stream","stream_id":0,"length":1000}]}}`
	pages, err := Read(strings.NewReader("\x1e" + page + "\n\x1e{\"time\":3,\"na"))
	if err != nil || len(pages) != 1 || pages[0].StreamBytes != 1000 {
		t.Fatalf("truncated trace: %+v, %v", pages, err)
	}
	if _, err := Read(strings.NewReader("\x1e{\"time\":3,\"na\n\x1e" + page + "\n")); err == nil {
		t.Fatal("a broken record in the middle was accepted")
	}
}

// The edge's controller events give each page the model at its start and
// the time it spent in each state while it was sent; WritePages lists them.
func TestModelAndStatesPerPage(t *testing.T) {
	pages := readRecords(t,
		`{"time":0,"name":"recovery:metrics_updated","data":{"congestion_window":40000}}`,
		`{"time":0,"name":"recovery:congestion_state_updated","data":{"new":"startup","trigger":"restart_from_idle"}}`,
		`{"time":0,"name":"lastmile:congestion_model_updated","data":{"state":"startup","congestion_window":40000,"pacing_rate":8000000,"max_bw":0,"bw":0}}`,
		`{"time":1,"name":"transport:packet_sent","data":{"frames":[{"frame_type":"stream","stream_id":0,"length":1000}]}}`,
		`{"time":21,"name":"recovery:congestion_state_updated","data":{"old":"startup","new":"drain","trigger":"ack"}}`,
		`{"time":25,"name":"recovery:congestion_state_updated","data":{"old":"drain","new":"probe_bw_down","trigger":"ack"}}`,
		`{"time":31,"name":"transport:packet_sent","data":{"frames":[{"frame_type":"stream","stream_id":60,"length":1000}]}}`,
		`{"time":40,"name":"lastmile:congestion_model_updated","data":{"state":"probe_bw_cruise","in_recovery":true,"congestion_window":30000,"pacing_rate":40000000,"max_bw":48000000,"bw":40000000,"bw_shortterm":40000000,"min_rtt":7.5,"inflight_longterm":90000,"inflight_shortterm":30000,"extra_acked":1200,"random_loss":0.05}}`,
		`{"time":40,"name":"recovery:congestion_state_updated","data":{"old":"probe_bw_down","new":"probe_bw_cruise","trigger":"loss"}}`,
		`{"time":100,"name":"transport:packet_sent","data":{"frames":[{"frame_type":"stream","stream_id":64,"length":2000}]}}`,
		`{"time":110,"name":"transport:packet_sent","data":{"frames":[{"frame_type":"stream","stream_id":64,"offset":2000,"length":2000}]}}`,
	)
	if len(pages) != 2 {
		t.Fatalf("%d pages: %+v", len(pages), pages)
	}
	p0, p1 := pages[0], pages[1]
	if p0.ModelAtStart.State != "startup" || p0.ModelAtStart.Cwnd != 40000 || p0.ModelAtStart.PacingRate != 1_000_000 {
		t.Errorf("page 0 model: %+v", p0.ModelAtStart)
	}
	wantStates := map[string]time.Duration{"startup": 20 * time.Millisecond, "drain": 4 * time.Millisecond, "probe_bw_down": 6 * time.Millisecond}
	if !maps.Equal(p0.StateTime, wantStates) {
		t.Errorf("page 0 states: %v, want %v", p0.StateTime, wantStates)
	}
	want := Model{State: "probe_bw_cruise", InRecovery: true, Cwnd: 30000, PacingRate: 5_000_000, MaxBw: 6_000_000,
		Bw: 5_000_000, BwShortterm: 5_000_000, MinRTT: 7500 * time.Microsecond, InflightHi: 90000, InflightLo: 30000,
		ExtraAcked: 1200, RandomLoss: 0.05}
	if p1.ModelAtStart != want {
		t.Errorf("page 1 model: %+v, want %+v", p1.ModelAtStart, want)
	}
	if !maps.Equal(p1.StateTime, map[string]time.Duration{"probe_bw_cruise": 10 * time.Millisecond}) {
		t.Errorf("page 1 states: %v", p1.StateTime)
	}
	var out strings.Builder
	if err := WritePages(&out, pages, 0); err != nil {
		t.Fatal(err)
	}
	row := "| 1 | 10 | 40 | probe_bw_cruise | 48.0 | 40.0 | 7.5 | 90 | 30 | 0 | 0 | probe_bw_cruise 10 | 2 | 0.1 | 0.0 | - |"
	if !strings.Contains(out.String(), row) || !strings.Contains(out.String(), "| 0 | 30 | 40 | startup | - | - | - | - | - | 0 | 0 | drain 4, probe_bw_down 6, startup 20 | 2 | 0.1 | 0.0 | - |") {
		t.Errorf("table:\n%s\nwant a row %s", out.String(), row)
	}
}

// Each packet counts once, whole (IP and UDP headers included), toward the
// page of its first request-stream frame or, carrying none, the page being
// sent; payload sent twice is counted as such; the bottleneck's time for a
// page is its wire bytes at the rate plus the time the sender left it idle.
func TestWireBytesAndLinkTime(t *testing.T) {
	pages := readRecords(t,
		`{"time":0,"name":"transport:connection_started","data":{"local":{"ip_v4":"198.18.1.2","port_v4":443}}}`,
		`{"time":0,"name":"transport:packet_sent","data":{"raw":{"length":1472},"frames":[{"frame_type":"stream","stream_id":0,"offset":0,"length":1400}]}}`,
		`{"time":1,"name":"transport:packet_sent","data":{"raw":{"length":1472},"frames":[{"frame_type":"stream","stream_id":4,"offset":0,"length":1400}]}}`,
		`{"time":2,"name":"transport:packet_sent","data":{"raw":{"length":72},"frames":[{"frame_type":"ack"}]}}`,
		`{"time":100,"name":"transport:packet_sent","data":{"raw":{"length":1472},"frames":[{"frame_type":"stream","stream_id":4,"offset":700,"length":1400}]}}`,
		`{"time":101,"name":"transport:packet_sent","data":{"raw":{"length":972},"frames":[{"frame_type":"stream","stream_id":60,"offset":0,"length":300},{"frame_type":"stream","stream_id":64,"offset":0,"length":600}]}}`,
		`{"time":500,"name":"transport:packet_sent","data":{"raw":{"length":72},"frames":[{"frame_type":"max_streams"}]}}`,
	)
	if len(pages) != 2 {
		t.Fatalf("%d pages: %+v", len(pages), pages)
	}
	p0, p1 := pages[0], pages[1]
	if p0.Packets != 5 || p0.WireBytes != 3*1500+100+1000 || p0.SentAgainBytes != 700 {
		t.Errorf("page 0: %d packets, %d wire bytes, %d sent again; want 5, 5600, 700", p0.Packets, p0.WireBytes, p0.SentAgainBytes)
	}
	// Page 1's frame rode in page 0's packet; the MAX_STREAMS after it is
	// page 1's on the wire, but not in its time at the link.
	if p1.Packets != 1 || p1.WireBytes != 100 || p1.StreamBytes != 600 {
		t.Errorf("page 1: %d packets, %d wire bytes, %d stream bytes; want 1, 100, 600", p1.Packets, p1.WireBytes, p1.StreamBytes)
	}
	if busy, idle := p1.LinkTime(1.2e6); busy != 0 || idle != 0 {
		t.Errorf("page 1: link time %v, idle %v, want none", busy, idle)
	}
	// 1.2 Mbit/s passes 150 bytes a millisecond: 10 ms per 1500-byte packet.
	busy, idle := p0.LinkTime(1.2e6)
	wantIdle := msDuration(100 - (20 + 100.0/150)) // from the ACK's last bit to the retransmission
	if d := idle - wantIdle; d < -time.Microsecond || d > time.Microsecond {
		t.Errorf("idle %v, want %v", idle, wantIdle)
	}
	if atRate := msDuration(5600.0 / 150); busy-idle-atRate < -time.Microsecond || busy-idle-atRate > time.Microsecond {
		t.Errorf("busy %v less idle %v is not the wire bytes at the rate (%v)", busy, idle, atRate)
	}

	v6 := readRecords(t,
		`{"time":0,"name":"transport:connection_started","data":{"local":{"ip_v6":"2001:db8::2","port_v6":443}}}`,
		`{"time":0,"name":"transport:packet_sent","data":{"raw":{"length":100},"frames":[{"frame_type":"stream","stream_id":0,"offset":0,"length":50}]}}`,
	)
	if v6[0].WireBytes != 148 {
		t.Errorf("IPv6 packet of 100 bytes counted %d on the wire, want 148", v6[0].WireBytes)
	}
}
