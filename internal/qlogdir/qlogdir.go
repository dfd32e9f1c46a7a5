// Package qlogdir writes a qlog file per QUIC connection into a directory,
// within a byte budget, for quic.Config.Tracer. quic-go's
// qlog.DefaultConnectionTracer does the same from QLOGDIR, without a bound
// (and exits the process if it cannot create the directory).
package qlogdir

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/qlog"
	"github.com/quic-go/quic-go/qlogwriter"
)

// Dir is a directory of qlog files.
type Dir struct {
	path string
	left atomic.Int64 // bytes the budget has left
	// OnFull, if set, is called once when the budget runs out.
	OnFull func()
	full   atomic.Bool
}

// New returns the Dir at path, created if missing, which writes up to
// maxBytes of qlog in all.
func New(path string, maxBytes int64) (*Dir, error) {
	if err := os.MkdirAll(path, 0o750); err != nil {
		return nil, fmt.Errorf("qlog directory: %w", err)
	}
	d := &Dir{path: path}
	d.left.Store(maxBytes)
	return d, nil
}

// Tracer is a quic.Config Tracer: it traces a new connection into
// <dir>/<original destination connection ID>_<server|client>.sqlog, or
// not at all once the budget is spent.
func (d *Dir) Tracer(_ context.Context, isClient bool, connID quic.ConnectionID) qlogwriter.Trace {
	if d.left.Load() <= 0 {
		return nil
	}
	label := "server"
	if isClient {
		label = "client"
	}
	f, err := os.OpenFile(filepath.Join(d.path, fmt.Sprintf("%s_%s.sqlog", connID, label)), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return nil
	}
	w := &file{Writer: bufio.NewWriter(&budgeted{d: d, f: f}), f: f}
	seq := qlogwriter.NewConnectionFileSeq(w, isClient, connID, []string{qlog.EventSchema})
	go seq.Run()
	return seq
}

// budgeted writes to f while the Dir's budget lasts, then drops the rest:
// the file ends at a record boundary of the buffered writer's flushes, and
// qlog's JSON-SEQ readers skip a torn last record.
type budgeted struct {
	d *Dir
	f *os.File
}

func (b *budgeted) Write(p []byte) (int, error) {
	if b.d.left.Add(-int64(len(p))) < 0 {
		if !b.d.full.Swap(true) && b.d.OnFull != nil {
			b.d.OnFull()
		}
		return len(p), nil
	}
	return b.f.Write(p)
}

type file struct {
	*bufio.Writer
	f *os.File
}

func (w *file) Close() error {
	err := w.Flush()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}
