package quicedge

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync/atomic"

	"github.com/quic-go/quic-go"
	"go.uber.org/zap"

	"github.com/lastmile-edge/lastmile/internal/congestion"
	"github.com/lastmile-edge/lastmile/internal/congestion/bbr"
	"github.com/lastmile-edge/lastmile/internal/congestion/quichook"
)

// Congestion controllers by congestion_control name. quic-go's own sender
// is "reno" (its default: NewCubicSender with reno set) or "cubic".
const (
	controllerBBR   = "bbr"
	controllerCubic = "cubic"
	controllerReno  = "reno"
)

var controllerNames = []string{controllerBBR, controllerCubic, controllerReno}

// controllers are lastmile's own controllers, which need lastmile's
// patched quic-go (third_party/quic-go) to run.
var controllers = map[string]congestion.Factory{controllerBBR: bbr.New}

// defaultController is bbr when this build has it, else quic-go's default.
// Which one serves the last mile best is the lab's call
// (docs/results/quic-cc.md).
func defaultController() string {
	if controllers[controllerBBR] != nil {
		return controllerBBR
	}
	return controllerReno
}

// checkCongestionControl checks the congestion_control name.
func (a *App) checkCongestionControl() error {
	switch {
	case !slices.Contains(controllerNames, a.CongestionControl):
		return fmt.Errorf("congestion_control %q: want one of %v", a.CongestionControl, controllerNames)
	case a.CongestionControl == controllerBBR && controllers[controllerBBR] == nil:
		return fmt.Errorf("congestion_control bbr: this build has no BBR; use cubic or reno")
	}
	return nil
}

// newConnController returns the controller record of a new connection
// from addr.
func (a *App) newConnController(addr net.Addr) *quichook.Conn {
	return quichook.New(a.CongestionControl, a.controllerFor(addr), a.CongestionControl == controllerReno)
}

var connControllerKey = &contextKey{"congestion-controller"}

// connContext gives each new connection the controller of the config that
// serves it: quic-go looks it up before the connection's first packet.
func (e *endpoint) connContext(ctx context.Context, info *quic.ClientInfo) (context.Context, error) {
	b := e.current.Load()
	if b == nil {
		return nil, errors.New("no server for this address")
	}
	var addr net.Addr
	if info != nil {
		addr = info.RemoteAddr
	}
	cc := b.app.newConnController(addr)
	return context.WithValue(cc.Context(ctx), connControllerKey, cc), nil
}

func connController(conn *quic.Conn) *quichook.Conn {
	cc, _ := conn.Context().Value(connControllerKey).(*quichook.Conn)
	return cc
}

// hookMissing is set once a connection ran without asking for its
// controller: quic-go lacks lastmile's patch (a build without the
// replace of go.mod, such as xcaddy's without --replace).
var hookMissing atomic.Bool

func (a *App) warnIfHookMissing(cc *quichook.Conn) {
	if cc.Consulted() || hookMissing.Swap(true) {
		return
	}
	a.logger.Warn("congestion control unavailable: this build's quic-go lacks lastmile's controller hook, so "+
		"connections use quic-go's NewReno; build with --replace github.com/quic-go/quic-go=<lastmile>/third_party/quic-go "+
		"(docs/CONFIGURATION.md)", zap.String("congestion_control", a.CongestionControl))
}
