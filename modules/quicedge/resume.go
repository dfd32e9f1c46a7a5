package quicedge

import (
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/lastmile-edge/lastmile/internal/congestion"
	"github.com/lastmile-edge/lastmile/internal/congestion/bbr"
	"github.com/lastmile-edge/lastmile/internal/congestion/pathmemory"
	"github.com/lastmile-edge/lastmile/internal/congestion/quichook"
)

// Careful Resume (RFC 9959): the edge remembers, per client address (IPv4
// address, IPv6 /64), the window, minimum RTT and loss rate each BBR
// connection ended with, and a new connection from there starts from them
// (internal/congestion/bbr/resume.go says how, and how carefully).
const (
	// pathMemoryEntries bounds the table: an entry is about 150 bytes, so
	// 64 Ki entries (clients seen within pathMemoryAge) take ~10 MB.
	pathMemoryEntries = 1 << 16
	// pathMemoryAge is how long a path's values are trusted: a returning
	// visitor's next page view, not a device that has since moved
	// networks (the RTT check catches most moves, not all).
	pathMemoryAge = 10 * time.Minute
)

// provisionResume sets CarefulResume's default and makes the memory. The
// default is on wherever BBR runs (docs/results/quic-mobile.md has the
// lab's before and after).
func (a *App) provisionResume() {
	if a.CarefulResume == nil {
		on := a.CongestionControl == controllerBBR
		a.CarefulResume = &on
	}
	if *a.CarefulResume && a.CongestionControl == controllerBBR {
		a.paths = processPaths()
	}
}

// processPaths is the process's one path memory, shared by every config
// loaded: what the edge learned of its clients' paths holds across a
// reload, as its connections do.
var processPaths = sync.OnceValue(func() *pathmemory.Memory {
	return pathmemory.New(pathMemoryEntries, pathMemoryAge, nil)
})

// checkResume refuses careful_resume with a controller that has no use for
// it: only lastmile's BBR resumes.
func (a *App) checkResume() error {
	if a.CarefulResume != nil && *a.CarefulResume && a.CongestionControl != controllerBBR {
		return fmt.Errorf("quic: careful_resume needs congestion_control bbr, not %q", a.CongestionControl)
	}
	return nil
}

// controllerFor returns the controller factory for a new connection from
// addr: BBR resuming from the client's saved path when there is one.
func (a *App) controllerFor(addr net.Addr) congestion.Factory {
	newCtrl := controllers[a.CongestionControl]
	if a.paths == nil || newCtrl == nil {
		return newCtrl
	}
	key, ok := pathmemory.Key(addr)
	if !ok {
		return newCtrl
	}
	rec, ok := a.paths.Get(key)
	if !ok {
		ccMetrics.resume.WithLabelValues("no_record").Inc()
		return newCtrl
	}
	return bbr.NewResuming(bbr.Resume{Cwnd: rec.Cwnd, RTT: rec.MinRTT, LossRate: rec.LossRate, Report: func(o bbr.ResumeOutcome) {
		ccMetrics.resume.WithLabelValues(string(o)).Inc()
	}})
}

// rememberPath saves what an ended connection's BBR learned of the path to
// addr (the draft's Observe phase). A connection that migrated ended on
// another path than the one it started on: it leaves nothing.
func (a *App) rememberPath(addr net.Addr, st quichook.Stats) {
	if a.paths == nil || st.Controller != controllerBBR || st.Paths != 1 {
		return
	}
	key, ok := pathmemory.Key(addr)
	if !ok {
		return
	}
	if saved, ok := bbr.Observe(st.Info, st.Delivered, st.Lost); ok {
		a.paths.Put(key, pathmemory.Record{Cwnd: saved.Cwnd, MinRTT: saved.RTT, LossRate: saved.LossRate})
	}
}
