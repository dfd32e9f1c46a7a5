package rum

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/DeRuina/timberjack"
	"github.com/caddyserver/caddy/v2"
)

// RawSink appends accepted beacons as JSON lines to a file rotated by
// size (timberjack, the rotating writer Caddy's own log files use).
type RawSink struct {
	Path       string `json:"path"`
	MaxSizeMB  int    `json:"max_size_mb,omitempty"`
	MaxBackups int    `json:"max_backups,omitempty"`
}

// sinks holds one writer per file, shared by the rum handler and the rum
// session module (one file may take beacons from both) and kept across
// config reloads: two writers rotating one file would lose lines.
var sinks = caddy.NewUsagePool()

// sink writes in its own goroutine; a full queue drops (and counts)
// rather than holding up a request.
type sink struct {
	w     *timberjack.Logger
	queue chan []byte
	done  chan struct{}
	once  sync.Once
}

// open returns the file's writer, opening it if no config holds it yet
// (then its size and backup limits are this config's); release lets go
// of it.
func (rs *RawSink) open() (*sink, error) {
	// The writer outlives this config: bad limits must not reach it
	// before Caddy calls Validate.
	if err := rs.validate(); err != nil {
		return nil, err
	}
	val, _, err := sinks.LoadOrNew(rs.Path, func() (caddy.Destructor, error) { return rs.newSink(), nil })
	if err != nil {
		return nil, err
	}
	return val.(*sink), nil
}

func (rs *RawSink) validate() error {
	switch {
	case rs.Path == "":
		return errors.New("rum: raw_sink needs a path")
	case rs.MaxSizeMB < 0:
		return fmt.Errorf("rum: raw_sink max_size_mb %d: must not be negative", rs.MaxSizeMB)
	case rs.MaxBackups < 0:
		return fmt.Errorf("rum: raw_sink max_backups %d: must not be negative", rs.MaxBackups)
	}
	return nil
}

func (rs *RawSink) release() error {
	_, err := sinks.Delete(rs.Path)
	return err
}

func (rs *RawSink) newSink() *sink {
	if rs.MaxSizeMB == 0 {
		rs.MaxSizeMB = 100
	}
	if rs.MaxBackups == 0 {
		rs.MaxBackups = 10
	}
	s := &sink{
		w:     &timberjack.Logger{Filename: rs.Path, MaxSize: rs.MaxSizeMB, MaxBackups: rs.MaxBackups},
		queue: make(chan []byte, 4096),
		done:  make(chan struct{}),
	}
	go s.run()
	return s
}

func (s *sink) run() {
	defer close(s.done)
	for line := range s.queue {
		_, _ = s.w.Write(line)
	}
}

type sinkLine struct {
	Time      time.Time       `json:"time"`
	Transport string          `json:"transport"`
	Browser   string          `json:"browser"`
	Device    string          `json:"device"`
	Region    string          `json:"region"` // the label: a configured region, other or unknown
	Beacon    json.RawMessage `json:"beacon"`
}

// write queues one beacon (already validated JSON); no IP is written.
func (s *sink) write(raw []byte, c client, transport string) {
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(sinkLine{Time: time.Now().UTC(), Transport: transport, Browser: c.browser, Device: c.device, Region: c.region, Beacon: raw})
	select {
	case s.queue <- buf.Bytes():
	default:
		metrics.sinkDropped.Inc()
	}
}

// Destruct closes the file when the last config holding it is gone.
func (s *sink) Destruct() error {
	s.once.Do(func() { close(s.queue) })
	<-s.done
	return s.w.Close()
}
