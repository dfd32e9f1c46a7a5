// Package anycast is lastmile's health model and route control: liveness
// and readiness on the admin API, an operator drain, and an optional
// embedded GoBGP speaker that announces the node's anycast prefixes only
// while it is ready, so a sick or draining node takes itself out of the
// anycast set instead of black-holing the users routed to it.
package anycast

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

func init() {
	caddy.RegisterModule(App{})
}

// App is the anycast app (global option `anycast`).
type App struct {
	// CheckInterval is how often readiness is evaluated. Default 1s: a
	// failure is withdrawn within about a second, for a check that costs
	// microseconds.
	CheckInterval caddy.Duration `json:"check_interval,omitempty"`

	// HoldDown is how long the node must stay ready before its prefixes
	// are announced (again), at start too, so a flapping or crash-looping
	// node does not flap routes (routers damp flapping prefixes, RFC 2439).
	// Withdrawals are never held. Default 30s.
	HoldDown caddy.Duration `json:"hold_down,omitempty"`

	// DrainWait is how long a drain waits, once the prefixes are withdrawn,
	// for routers to converge and traffic to move to other nodes. Default
	// 30s, a few BGP update rounds through a provider.
	DrainWait caddy.Duration `json:"drain_wait,omitempty"`

	// DrainTimeout bounds the wait, after DrainWait, for WebTransport
	// sessions to end. Default 60s.
	DrainTimeout caddy.Duration `json:"drain_timeout,omitempty"`

	// BGP, if set, runs an embedded GoBGP speaker.
	BGP *BGPConfig `json:"bgp,omitempty"`

	logger  *zap.Logger
	speaker *speaker
	gate    gate
	stop    chan struct{}
	wake    chan struct{}
	done    chan struct{}
	lastRun *atomic.Int64 // unix nanos of the last evaluation, for liveness
}

// CaddyModule returns the Caddy module information.
func (App) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "anycast", New: func() caddy.Module { return new(App) }}
}

// Provision sets defaults and registers the metrics.
func (a *App) Provision(ctx caddy.Context) error {
	a.logger = ctx.Logger()
	if a.CheckInterval == 0 {
		a.CheckInterval = caddy.Duration(time.Second)
	}
	if a.HoldDown == 0 {
		a.HoldDown = caddy.Duration(30 * time.Second)
	}
	if a.DrainWait == 0 {
		a.DrainWait = caddy.Duration(30 * time.Second)
	}
	if a.DrainTimeout == 0 {
		a.DrainTimeout = caddy.Duration(60 * time.Second)
	}
	a.gate.holdDown = time.Duration(a.HoldDown)
	a.lastRun = new(atomic.Int64)
	a.stop, a.wake = make(chan struct{}), make(chan struct{}, 1)
	return registerMetrics(ctx.GetMetricsRegistry())
}

// Validate checks durations and the BGP config, for JSON and Caddyfiles.
func (a *App) Validate() error {
	for _, d := range []struct {
		name string
		d    caddy.Duration
	}{{"check_interval", a.CheckInterval}, {"hold_down", a.HoldDown}, {"drain_wait", a.DrainWait}, {"drain_timeout", a.DrainTimeout}} {
		if d.d <= 0 {
			return fmt.Errorf("anycast: %s %s: want a positive duration", d.name, time.Duration(d.d))
		}
	}
	if a.CheckInterval < caddy.Duration(10*time.Millisecond) {
		return fmt.Errorf("anycast: check_interval %s: want at least 10ms", time.Duration(a.CheckInterval))
	}
	if a.BGP != nil {
		if err := a.BGP.validate(); err != nil {
			return fmt.Errorf("anycast: bgp: %w", err)
		}
	}
	return nil
}

// Start starts (or takes over, after a reload) the speaker and the check
// loop.
func (a *App) Start() error {
	if a.BGP != nil {
		sp, err := loadSpeaker(a.BGP, a.logger)
		if err != nil {
			return err
		}
		a.speaker = sp
		// A reload keeps an announced route announced: no new hold-down.
		a.gate.announced = sp.isAnnounced()
	}
	current.Store(a)
	a.done = make(chan struct{})
	go func() {
		defer close(a.done)
		a.run()
	}()
	return nil
}

// Stop ends the loop; the speaker withdraws and closes its sessions when
// no config uses it any more.
func (a *App) Stop() error {
	close(a.stop)
	<-a.done
	current.CompareAndSwap(a, nil)
	if a.speaker != nil {
		_, err := speakers.Delete(a.speaker.key)
		return err
	}
	return nil
}

// current is the running config's app, for the admin API and signals.
var current atomic.Pointer[App]

// run evaluates readiness every CheckInterval, and at once when woken by a
// drain, and moves the route accordingly.
func (a *App) run() {
	tick := time.NewTicker(time.Duration(a.CheckInterval))
	defer tick.Stop()
	for {
		a.step(time.Now())
		select {
		case <-a.stop:
			return
		case <-tick.C:
		case <-a.wake:
		}
	}
}

func (a *App) step(now time.Time) {
	st := evaluate(a, now)
	was := a.gate.announced
	announce := a.gate.observe(st.Ready, now)
	a.lastRun.Store(now.UnixNano())
	setReady(st.Ready)
	if announce != was {
		a.logger.Info("anycast route", zap.Bool("announce", announce), zap.Strings("reasons", st.Reasons))
		transitions.WithLabelValues(map[bool]string{true: "announced", false: "withdrawn"}[announce]).Inc()
	}
	if a.speaker != nil {
		if err := a.speaker.set(announce); err != nil {
			a.logger.Error("bgp: moving the route", zap.Bool("announce", announce), zap.Error(err))
			return
		}
	}
	setAnnounced(announce)
}

// poke makes the loop evaluate now, so a drain withdraws at once.
func (a *App) poke() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// Interface guards
var (
	_ caddy.App         = (*App)(nil)
	_ caddy.Provisioner = (*App)(nil)
	_ caddy.Validator   = (*App)(nil)
)

var errNoApp = errors.New("no anycast app in the running config")
