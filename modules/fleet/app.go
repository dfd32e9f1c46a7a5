// Package fleet is the Caddy app that carries cache purges to every node
// of a fleet over a NATS JetStream stream: a purge accepted by any node's
// purge API is published once (with an id, for deduplication), and every
// node applies the stream in sequence order, remembering the last sequence
// it applied in Caddy's storage so it resumes there after a disconnect,
// a reload or a restart.
package fleet

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/lastmile-edge/lastmile/internal/promreg"
	"github.com/lastmile-edge/lastmile/modules/httpcache"
)

func init() {
	caddy.RegisterModule(App{})
}

// App connects the node to the fleet's NATS servers.
//
// Each default below is set in Provision with its reason.
type App struct {
	// Servers are the NATS URLs (nats://, tls://), any node of the cluster.
	Servers []string `json:"servers,omitempty"`

	// Authentication, as NATS users know it: one of a credentials file
	// (JWT + NKEY seed), an NKEY seed file, a token, or user and password.
	Credentials string `json:"credentials,omitempty"`
	NKey        string `json:"nkey,omitempty"`
	Token       string `json:"token,omitempty"`
	User        string `json:"user,omitempty"`
	Password    string `json:"password,omitempty"`

	// TLS to the servers: a CA file to trust, and a client certificate and
	// key for mutual TLS.
	TLS *TLS `json:"tls,omitempty"`

	// Stream is the JetStream stream of purges. Default LASTMILE_PURGE.
	Stream string `json:"stream,omitempty"`
	// Subject purges are published on. Default lastmile.purge.
	Subject string `json:"subject,omitempty"`
	// AckSubject prefixes the subjects nodes acknowledge on (plain NATS,
	// not stored): <ack_subject>.<purge id>. Default lastmile.purge_ack.
	AckSubject string `json:"ack_subject,omitempty"`
	// Node names this node in acknowledgements. Default the host name.
	Node string `json:"node,omitempty"`

	// MaxAge and MaxMsgs bound the stream: a node that was away longer
	// than the stream keeps soft-purges everything. Defaults 24h, 100000.
	MaxAge  caddy.Duration `json:"max_age,omitempty"`
	MaxMsgs int64          `json:"max_msgs,omitempty"`
	// Replicas of the stream in a NATS cluster. Default 1.
	Replicas int `json:"replicas,omitempty"`
	// Duplicates is the window in which a repeated purge id is dropped.
	// Default 2m.
	Duplicates caddy.Duration `json:"duplicate_window,omitempty"`
	// Timeout bounds a publish and is the default wait for acknowledgements.
	// Default 5s.
	Timeout caddy.Duration `json:"timeout,omitempty"`

	nc      *nats.Conn
	js      jetstream.JetStream
	applier *applier
	stop    chan struct{}
	done    *sync.WaitGroup
	logger  *zap.Logger
	ctx     caddy.Context
}

// TLS is the client side of TLS to the NATS servers.
type TLS struct {
	CA   string `json:"ca,omitempty"`
	Cert string `json:"cert,omitempty"`
	Key  string `json:"key,omitempty"`
}

// CaddyModule returns the Caddy module information.
func (App) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "fleet",
		New: func() caddy.Module { return new(App) },
	}
}

// Provision sets defaults and registers the metrics.
func (a *App) Provision(ctx caddy.Context) error {
	a.ctx = ctx
	a.logger = ctx.Logger()
	if a.Stream == "" {
		a.Stream = "LASTMILE_PURGE"
	}
	if a.Subject == "" {
		a.Subject = "lastmile.purge"
	}
	if a.AckSubject == "" {
		// Outside the purge subject, so the stream does not store acks.
		a.AckSubject = "lastmile.purge_ack"
	}
	if a.Node == "" {
		host, err := os.Hostname()
		if err != nil {
			return fmt.Errorf("fleet: no node name given and no host name: %w", err)
		}
		a.Node = host
	}
	if a.MaxAge == 0 {
		// A node down for a day comes back to a soft purge of everything,
		// which costs revalidations, not stale content.
		a.MaxAge = caddy.Duration(24 * time.Hour)
	}
	if a.MaxMsgs == 0 {
		// A purge is a few hundred bytes: 100k of them is tens of MB.
		a.MaxMsgs = 100_000
	}
	if a.Replicas == 0 {
		a.Replicas = 1
	}
	if a.Duplicates == 0 {
		// JetStream's own default: covers a client's retries.
		a.Duplicates = caddy.Duration(2 * time.Minute)
	}
	if a.Timeout == 0 {
		// Far above a loopback or regional round trip, short enough for
		// an operator at a terminal.
		a.Timeout = caddy.Duration(5 * time.Second)
	}
	return promreg.Register(ctx.GetMetricsRegistry(), metrics.collectors()...)
}

var (
	// A node name and stream name are single NATS subject tokens / stream names.
	namePattern    = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	nodePattern    = regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`)
	subjectPattern = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)
)

// Validate checks the config; JSON configs get the same checks as
// Caddyfiles.
func (a *App) Validate() error {
	var errs []error
	if len(a.Servers) == 0 {
		errs = append(errs, errors.New("fleet: nats: at least one server URL is required"))
	}
	for _, s := range a.Servers {
		if !strings.Contains(s, "://") {
			errs = append(errs, fmt.Errorf("fleet: nats server %q: want a URL such as nats://host:4222", s))
		}
	}
	auth := 0
	for _, set := range []bool{a.Credentials != "", a.NKey != "", a.Token != "", a.User != ""} {
		if set {
			auth++
		}
	}
	if auth > 1 {
		errs = append(errs, errors.New("fleet: give one of credentials, nkey, token, user"))
	}
	if (a.User == "") != (a.Password == "") {
		errs = append(errs, errors.New("fleet: user and password go together"))
	}
	if a.TLS != nil && (a.TLS.Cert == "") != (a.TLS.Key == "") {
		errs = append(errs, errors.New("fleet: tls cert and key go together"))
	}
	if !namePattern.MatchString(a.Stream) {
		errs = append(errs, fmt.Errorf("fleet: stream %q: want 1 to 64 of A-Z a-z 0-9 _ -", a.Stream))
	}
	if !nodePattern.MatchString(a.Node) {
		errs = append(errs, fmt.Errorf("fleet: node %q: want 1 to 128 of A-Z a-z 0-9 . _ -", a.Node))
	}
	for _, s := range []string{a.Subject, a.AckSubject} {
		if !subjectPattern.MatchString(s) {
			errs = append(errs, fmt.Errorf("fleet: subject %q: want dot-separated tokens without wildcards", s))
		}
	}
	if a.AckSubject == a.Subject || strings.HasPrefix(a.AckSubject, a.Subject+".") {
		errs = append(errs, fmt.Errorf("fleet: ack_subject %q must lie outside subject %q, or the stream would store acks", a.AckSubject, a.Subject))
	}
	if a.MaxAge < 0 || (a.MaxAge > 0 && time.Duration(a.MaxAge) < time.Minute) {
		errs = append(errs, fmt.Errorf("fleet: max_age %s: want at least 1m", time.Duration(a.MaxAge)))
	}
	if a.MaxMsgs < 1 {
		errs = append(errs, fmt.Errorf("fleet: max_msgs %d: want at least 1", a.MaxMsgs))
	}
	if a.Replicas < 1 || a.Replicas > 5 {
		errs = append(errs, fmt.Errorf("fleet: replicas %d: want 1 to 5 (JetStream's limit)", a.Replicas))
	}
	if a.Duplicates < 0 || (time.Duration(a.Duplicates) > time.Duration(a.MaxAge) && a.MaxAge > 0) {
		errs = append(errs, fmt.Errorf("fleet: duplicate_window %s: want 0 to max_age", time.Duration(a.Duplicates)))
	}
	if a.Timeout < 0 || time.Duration(a.Timeout) > time.Minute {
		errs = append(errs, fmt.Errorf("fleet: timeout %s: want up to 1m", time.Duration(a.Timeout)))
	}
	return errors.Join(errs...)
}

// Start connects to NATS (in the background if it is down: the edge serves
// while NATS is away, and refuses purges) and starts applying purges.
func (a *App) Start() error {
	opts, err := a.natsOptions()
	if err != nil {
		return err
	}
	a.stop = make(chan struct{})
	a.done = new(sync.WaitGroup)
	reconnected := make(chan struct{}, 1)
	// Made before connecting: the disconnect handler marks it.
	a.applier = newApplier(a, a.ctx.Storage())
	opts = append(opts,
		// The first connect is no reconnect: the applier's first
		// subscription waits for it (or retries each second), and a
		// signal from it, which nats.go sends asynchronously, would
		// subscribe a second time for nothing.
		nats.ConnectHandler(func(*nats.Conn) { metrics.connected.Set(1) }),
		nats.ReconnectHandler(func(*nats.Conn) {
			metrics.connected.Set(1)
			a.logger.Info("reconnected to NATS")
			notify(reconnected)
		}),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			metrics.connected.Set(0)
			a.applier.disconnected()
			a.logger.Warn("disconnected from NATS; purges are refused until it is back", zap.Error(err))
		}),
	)
	nc, err := nats.Connect(strings.Join(a.Servers, ","), opts...)
	if err != nil {
		return fmt.Errorf("fleet: connecting to NATS: %w", err)
	}
	if nc.IsConnected() {
		metrics.connected.Set(1)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return fmt.Errorf("fleet: %w", err)
	}
	a.nc, a.js = nc, js
	a.done.Add(1)
	go func() {
		defer a.done.Done()
		a.applier.run(a.stop, reconnected)
	}()
	httpcache.RegisterPurgeFanout(a)
	return nil
}

// Stop stops applying purges and closes the connection.
func (a *App) Stop() error {
	httpcache.UnregisterPurgeFanout(a)
	close(a.stop)
	a.done.Wait()
	a.nc.Close()
	metrics.connected.Set(0)
	return nil
}

func notify(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Interface guards
var (
	_ caddy.App             = (*App)(nil)
	_ caddy.Provisioner     = (*App)(nil)
	_ caddy.Validator       = (*App)(nil)
	_ httpcache.PurgeFanout = (*App)(nil)
)
