// Package qlogstat reads the qlog files quic-go writes (JSON-SEQ .sqlog)
// on the sending side of a connection and summarises, per page load, what
// its congestion controller did: the window it started the page with, how
// many bytes it moved per round trip, its probe timeouts and losses by
// trigger, and, from the edge's own controller events (quichook), the
// controller's state and model at the page's start and the time it spent
// in each state while it sent the page. The lab's page loads send a page as 16 requests on consecutive
// client bidirectional streams, so a page is a run of 16 stream ids.
package qlogstat

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// RequestsPerPage is how many requests the lab's page load sends: the HTML
// and 15 subresources.
const RequestsPerPage = 16

// Page is what the sender did while it sent one page.
type Page struct {
	Index int // 0 is the connection's first page
	// CwndAtStart is the congestion window when the page's first packet
	// left; SRTTAtStart the smoothed RTT then, or the first one after for a
	// page that began before the connection had an RTT sample (a new
	// connection's first page can: quic-go's handshake probes retire the
	// packets whose ACKs would have given one).
	CwndAtStart int64
	SRTTAtStart time.Duration
	Duration    time.Duration // first to last packet of the page
	StreamBytes int64         // the page's stream payload sent, retransmissions included
	// BytesPerRTT is StreamBytes spread over the page's round trips
	// (Duration / SRTTAtStart, at least one).
	BytesPerRTT float64
	PTOs        int            // probe timeouts that fired
	Lost        map[string]int // packets declared lost, by trigger
	Spurious    int            // losses later found spurious
	// SpuriousBy counts the spurious losses by the trigger that declared
	// them ("reordering_threshold", "time_threshold"; "" if the trace did
	// not say).
	SpuriousBy map[string]int
	// ModelAtStart is the controller's model when the page's first packet
	// left (the last lastmile:congestion_model_updated before it; zero in
	// traces without those events).
	ModelAtStart Model
	// StateTime is the time spent in each controller state between the
	// page's first and last packet (recovery:congestion_state_updated).
	StateTime map[string]time.Duration
	// Packets and WireBytes are the IP packets the sender sent for the
	// page, with their IP and UDP headers: a packet counts toward the page
	// of its first request-stream frame, one without such a frame (an
	// ACK, MAX_STREAMS) toward the page being sent. On a rate-limited
	// link these bytes, not the page's, set its time.
	Packets   int
	WireBytes int64
	// SentAgainBytes is the page's stream payload sent more than once:
	// retransmissions and the copies of small final flights.
	SentAgainBytes int64
	sends          []send
}

// send is one packet of a page: when it left (ms) and its IP size.
type send struct {
	at   float64
	size int64
}

// LinkTime is the time a bottleneck of rateBitsPerSec, empty at the page's
// first packet, needs to pass the page's packets up to its last stream
// packet as the sender sent them, and how long of it the bottleneck stood
// idle (waiting for the page's requests, or the sender fell behind the
// link). busy - idle is those packets' wire bytes at the rate.
func (p Page) LinkTime(rateBitsPerSec float64) (busy, idle time.Duration) {
	if len(p.sends) == 0 || rateBitsPerSec <= 0 {
		return 0, 0
	}
	msPerByte := 8 / rateBitsPerSec * 1000
	start := p.sends[0].at
	free := start // when the bottleneck has passed what came before
	var idleMs float64
	for _, s := range p.sends {
		if s.at > free {
			idleMs += s.at - free
			free = s.at
		}
		free += float64(s.size) * msPerByte
	}
	return msDuration(free - start), msDuration(idleMs)
}

// msDuration converts qlog's milliseconds.
func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// Model is the controller's state and model as the edge traces it
// (lastmile:congestion_model_updated): rates in bytes per second, volumes
// in bytes, unset bounds 0.
type Model struct {
	State                  string
	InRecovery             bool
	Cwnd, PacingRate       int64
	MaxBw, Bw, BwShortterm int64
	MinRTT                 time.Duration
	InflightHi, InflightLo int64 // inflight_longterm, inflight_shortterm
	ExtraAcked             int64
	RandomLoss             float64
	// LossRoundMinRTT and LossRoundLoss are the last loss round's least
	// RTT and loss rate.
	LossRoundMinRTT time.Duration
	LossRoundLoss   float64
}

type record struct {
	Time float64         `json:"time"` // ms since the trace's reference time
	Name string          `json:"name"`
	Data json.RawMessage `json:"data"`
}

type packetSent struct {
	Raw struct {
		Length int64 `json:"length"` // the UDP payload
	} `json:"raw"`
	Frames []struct {
		Type     string `json:"frame_type"`
		StreamID int64  `json:"stream_id"`
		Offset   int64  `json:"offset"`
		Length   int64  `json:"length"`
	} `json:"frames"`
}

// connectionStarted says the connection's address family, which sets the
// IP header every packet carries.
type connectionStarted struct {
	Local struct {
		IPv6 string `json:"ip_v6"`
	} `json:"local"`
}

// IP and UDP header bytes of a datagram.
const (
	ipv4UDPHeader = 20 + 8
	ipv6UDPHeader = 40 + 8
)

type metricsUpdated struct {
	Cwnd int64   `json:"congestion_window"`
	SRTT float64 `json:"smoothed_rtt"` // ms
}

type packetLost struct {
	Header struct {
		PacketType   string `json:"packet_type"`
		PacketNumber int64  `json:"packet_number"`
	} `json:"header"`
	Trigger string `json:"trigger"`
}

type spuriousLoss struct {
	PacketNumber int64 `json:"packet_number"` // 1-RTT: quic-go detects spurious losses of those only
}

type modelUpdated struct {
	State             string  `json:"state"`
	InRecovery        bool    `json:"in_recovery"`
	Cwnd              int64   `json:"congestion_window"`
	PacingRate        int64   `json:"pacing_rate"` // bits per second
	MaxBw             int64   `json:"max_bw"`
	Bw                int64   `json:"bw"`
	BwShortterm       int64   `json:"bw_shortterm"`
	MinRTT            float64 `json:"min_rtt"` // ms
	InflightLongterm  int64   `json:"inflight_longterm"`
	InflightShortterm int64   `json:"inflight_shortterm"`
	ExtraAcked        int64   `json:"extra_acked"`
	RandomLoss        float64 `json:"random_loss"`
	LossRoundMinRTT   float64 `json:"loss_round_min_rtt"` // ms
	LossRoundLoss     float64 `json:"loss_round_loss"`
}

func (m modelUpdated) model() Model {
	return Model{
		State: m.State, InRecovery: m.InRecovery, Cwnd: m.Cwnd, PacingRate: m.PacingRate / 8,
		MaxBw: m.MaxBw / 8, Bw: m.Bw / 8, BwShortterm: m.BwShortterm / 8,
		MinRTT:     msDuration(m.MinRTT),
		InflightHi: m.InflightLongterm, InflightLo: m.InflightShortterm,
		ExtraAcked: m.ExtraAcked, RandomLoss: m.RandomLoss,
		LossRoundMinRTT: msDuration(m.LossRoundMinRTT), LossRoundLoss: m.LossRoundLoss,
	}
}

type stateUpdated struct {
	New string `json:"new"`
}

// stateChange is the controller entering a state at a time (ms).
type stateChange struct {
	at    float64
	state string
}

type lossTimer struct {
	EventType string `json:"event_type"`
	TimerType string `json:"timer_type"`
}

// pageOf maps a client-initiated bidirectional stream to its page.
func pageOf(streamID int64) (int, bool) {
	if streamID%4 != 0 {
		return 0, false // control, QPACK or server-initiated streams
	}
	return int(streamID/4) / RequestsPerPage, true
}

// Read summarises one trace.
func Read(r io.Reader) ([]Page, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	sc.Split(splitRecords)
	var (
		pages   []*Page
		current *Page
		first   = map[int]float64{}
		last    = map[int]float64{}
		cwnd    int64
		srtt    time.Duration
		model   Model
		states  []stateChange
		// lostBy is the trigger that declared each 1-RTT packet lost.
		lostBy = map[int64]string{}
		// sentUpTo is how far each stream's payload has been sent.
		sentUpTo = map[int64]int64{}
		ipHeader = int64(ipv4UDPHeader)
	)
	page := func(i int, at float64) *Page {
		for len(pages) <= i {
			pages = append(pages, nil)
		}
		if pages[i] == nil {
			pages[i] = &Page{Index: i, CwndAtStart: cwnd, SRTTAtStart: srtt, Lost: map[string]int{}, SpuriousBy: map[string]int{},
				ModelAtStart: model, StateTime: map[string]time.Duration{}}
			first[i] = at
		}
		return pages[i]
	}
	var broken error // a record that did not parse: fatal unless it is the last (a trace still being written)
	for sc.Scan() {
		if broken != nil {
			return nil, broken
		}
		var rec record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			broken = fmt.Errorf("qlog record: %w", err)
			continue
		}
		switch rec.Name {
		case "recovery:metrics_updated":
			var m metricsUpdated
			if err := json.Unmarshal(rec.Data, &m); err != nil {
				return nil, err
			}
			if m.Cwnd > 0 {
				cwnd = m.Cwnd
			}
			if m.SRTT > 0 {
				srtt = msDuration(m.SRTT)
				for _, p := range pages {
					if p != nil && p.SRTTAtStart == 0 {
						p.SRTTAtStart = srtt // began before the first RTT sample
					}
				}
			}
		case "transport:packet_sent":
			var p packetSent
			if err := json.Unmarshal(rec.Data, &p); err != nil {
				return nil, err
			}
			var owner *Page // the page this packet counts toward
			for _, f := range p.Frames {
				if f.Type != "stream" {
					continue
				}
				i, ok := pageOf(f.StreamID)
				if !ok {
					continue
				}
				pg := page(i, rec.Time)
				pg.StreamBytes += f.Length
				if upTo := sentUpTo[f.StreamID]; f.Offset < upTo {
					pg.SentAgainBytes += min(f.Length, upTo-f.Offset)
				}
				sentUpTo[f.StreamID] = max(sentUpTo[f.StreamID], f.Offset+f.Length)
				last[i] = rec.Time
				current = pg
				if owner == nil {
					owner = pg
				}
			}
			if owner == nil {
				owner = current
			}
			if owner != nil {
				size := p.Raw.Length + ipHeader
				owner.Packets++
				owner.WireBytes += size
				owner.sends = append(owner.sends, send{at: rec.Time, size: size})
			}
		case "transport:connection_started":
			var cs connectionStarted
			if err := json.Unmarshal(rec.Data, &cs); err != nil {
				return nil, err
			}
			if cs.Local.IPv6 != "" {
				ipHeader = ipv6UDPHeader
			}
		case "recovery:packet_lost":
			var l packetLost
			if err := json.Unmarshal(rec.Data, &l); err != nil {
				return nil, err
			}
			if l.Header.PacketType == "1RTT" {
				lostBy[l.Header.PacketNumber] = l.Trigger
			}
			if current != nil {
				current.Lost[l.Trigger]++
			}
		case "recovery:spurious_loss":
			var sl spuriousLoss
			if err := json.Unmarshal(rec.Data, &sl); err != nil {
				return nil, err
			}
			if current != nil {
				current.Spurious++
				current.SpuriousBy[lostBy[sl.PacketNumber]]++
			}
		case "lastmile:congestion_model_updated":
			var m modelUpdated
			if err := json.Unmarshal(rec.Data, &m); err != nil {
				return nil, err
			}
			model = m.model()
		case "recovery:congestion_state_updated":
			var su stateUpdated
			if err := json.Unmarshal(rec.Data, &su); err != nil {
				return nil, err
			}
			states = append(states, stateChange{at: rec.Time, state: su.New})
		case "recovery:loss_timer_updated":
			var lt lossTimer
			if err := json.Unmarshal(rec.Data, &lt); err != nil {
				return nil, err
			}
			if current != nil && lt.EventType == "expired" && lt.TimerType == "pto" {
				current.PTOs++
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	out := make([]Page, 0, len(pages))
	for i, p := range pages {
		if p == nil {
			continue
		}
		p.Duration = msDuration(last[i] - first[i])
		// The link's time for the page ends with its last stream packet:
		// the ACKs and MAX_STREAMS after it wait for the next page.
		for len(p.sends) > 0 && p.sends[len(p.sends)-1].at > last[i] {
			p.sends = p.sends[:len(p.sends)-1]
		}
		addStateTime(p.StateTime, states, first[i], last[i])
		rtts := 1.0
		if p.SRTTAtStart > 0 {
			rtts = max(1, float64(p.Duration)/float64(p.SRTTAtStart))
		}
		p.BytesPerRTT = float64(p.StreamBytes) / rtts
		out = append(out, *p)
	}
	return out, nil
}

// addStateTime adds to st the time of [from, to] (ms) spent in each state
// of the timeline states (in trace order).
func addStateTime(st map[string]time.Duration, states []stateChange, from, to float64) {
	for k, c := range states {
		end := to
		if k+1 < len(states) {
			end = min(end, states[k+1].at)
		}
		if start := max(c.at, from); end > start {
			st[c.state] += msDuration(end - start)
		}
	}
}

// ReadDir summarises every sender-side trace (*_server.sqlog) in dir, by
// file name.
func ReadDir(dir string) (map[string][]Page, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_server.sqlog"))
	if err != nil {
		return nil, err
	}
	out := map[string][]Page{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		pages, err := Read(fh)
		fh.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out[filepath.Base(f)] = pages
	}
	return out, nil
}

// splitRecords splits JSON-SEQ (RFC 7464): each record starts with 0x1e.
func splitRecords(data []byte, atEOF bool) (int, []byte, error) {
	start := 0
	for start < len(data) && (data[start] == 0x1e || data[start] == '\n') {
		start++
	}
	if start == len(data) {
		if atEOF {
			return len(data), nil, nil
		}
		return start, nil, nil
	}
	if end := bytes.IndexByte(data[start:], 0x1e); end >= 0 {
		return start + end, bytes.TrimSpace(data[start : start+end]), nil
	}
	if atEOF {
		return len(data), bytes.TrimSpace(data[start:]), nil
	}
	return start, nil, nil
}
