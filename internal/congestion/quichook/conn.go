package quichook

import (
	"context"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// Conn is one QUIC connection's congestion controller as the edge sees it:
// which controller it runs, its state now and its history. Its methods are
// safe for concurrent use; quic-go drives the controller itself from the
// connection's goroutine.
type Conn struct {
	controller string
	newCtrl    congestion.Factory // nil: quic-go's own sender
	reno       bool

	consulted atomic.Bool
	// busyStart is when bytes in flight last rose from zero (0: none in
	// flight), on the sender's clock.
	busyStart atomic.Int64

	mu         sync.Mutex
	now        func() int64 // the sender's clock, once a path exists
	stats      Stats
	stateSince int64
	trace      *modelTrace // nil: no qlog (qlog.go)
}

// Stats are a connection's controller state and history.
type Stats struct {
	// Controller is the congestion_control name ("bbr", "cubic", "reno").
	Controller string
	congestion.Info
	// Paths counts the controllers made: one, plus one per migration,
	// which starts a fresh controller.
	Paths int
	// StateTime is the time spent in each of the controller's states.
	StateTime map[string]time.Duration
	// Delivered is the bytes acknowledged; Busy the time with bytes in
	// flight, so Delivered/Busy is the delivery rate while sending, idle
	// gaps of a kept connection left out.
	Delivered int64
	Busy      time.Duration
	// Lost is the bytes declared lost (Careful Resume saves the path's
	// loss rate from it).
	Lost int64
}

// DeliveryRate is Delivered per second of Busy (0 before any).
func (s Stats) DeliveryRate() float64 {
	if s.Busy <= 0 {
		return 0
	}
	return float64(s.Delivered) / s.Busy.Seconds()
}

// New returns the Conn of a connection that runs newCtrl's controllers, or
// quic-go's own sender (NewReno if reno, else CUBIC) if newCtrl is nil.
// controller names it in Stats.
func New(controller string, newCtrl congestion.Factory, reno bool) *Conn {
	return &Conn{controller: controller, newCtrl: newCtrl, reno: reno,
		stats: Stats{Controller: controller, StateTime: make(map[string]time.Duration)}}
}

// Context returns ctx carrying c's factory, for quic.Transport's
// ConnContext (or a client's Dial context).
func (c *Conn) Context(ctx context.Context) context.Context {
	return context.WithValue(ctx, ContextKey, wireFactory(c.factory))
}

// Consulted reports whether quic-go asked for a controller: a quic-go
// without lastmile's patch never does.
func (c *Conn) Consulted() bool { return c.consulted.Load() }

// Stats returns the controller's state and history so far.
func (c *Conn) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.StateTime = maps.Clone(c.stats.StateTime)
	if c.now == nil {
		return s
	}
	now := c.now()
	if s.State != "" {
		s.StateTime[s.State] += elapsed(c.stateSince, now)
	}
	if start := c.busyStart.Load(); start != 0 {
		s.Busy += elapsed(start, now)
	}
	return s
}

// elapsed is the time from from to to, never negative: events reach the
// controller stamped with their own times (an ACK with its packet's
// receive time), which may precede the last one published, and a
// negative duration would make the state-time counters decrease.
func elapsed(from, to int64) time.Duration {
	return time.Duration(max(0, to-from))
}

// factory is called by quic-go for a new connection and for each path it
// migrates to.
func (c *Conn) factory(initialMaxDatagramSize int64, now func() int64, builtin func(reno bool) wireController) wireController {
	c.consulted.Store(true)
	var inner wireController
	model := func() congestion.Model { return modelFromInfo(inner.Info()) }
	if c.newCtrl != nil {
		ctrl := c.newCtrl(congestion.Conn{
			InitialMaxDatagramSize: initialMaxDatagramSize,
			Now:                    func() congestion.Time { return congestion.Time(now()) },
		})
		inner = &adapter{c: ctrl}
		if r, ok := ctrl.(congestion.ModelReporter); ok {
			model = r.Model
		}
	} else {
		inner = builtin(c.reno)
	}
	c.mu.Lock()
	trace := c.trace
	c.now = now
	c.stats.Paths++
	// A migration drops the old path's packets in flight.
	if start := c.busyStart.Swap(0); start != 0 {
		c.stats.Busy += elapsed(start, now())
	}
	c.mu.Unlock()
	o := &observed{conn: c, wireController: inner, trace: trace, model: model}
	o.publish(now(), 0, 0, false)
	return o
}

// observed passes quic-go's calls to the controller, publishes its state
// after each ACK, and traces its model into the qlog, if any.
type observed struct {
	conn *Conn
	wireController
	trace *modelTrace
	model func() congestion.Model
}

var _ wireSpuriousLossController = (*observed)(nil)

func (o *observed) OnPacketSent(now int64, p wirePacket, bytesInFlight int64, isRetransmittable bool) {
	if bytesInFlight > 0 && o.conn.busyStart.Load() == 0 {
		o.conn.busyStart.Store(now)
	}
	o.wireController.OnPacketSent(now, p, bytesInFlight, isRetransmittable)
	if o.trace != nil && isRetransmittable && bytesInFlight == p.Bytes {
		o.trace.record(o.model(), triggerRestart)
	}
}

func (o *observed) OnAck(ev wireAckEvent) {
	o.wireController.OnAck(ev)
	var acked, lost int64
	for _, p := range ev.Acked {
		acked += p.Bytes
	}
	for _, p := range ev.Lost {
		lost += p.Bytes
	}
	o.publish(ev.Now, acked, lost, ev.BytesInFlight == 0)
	if o.trace != nil {
		trigger := triggerAck
		if len(ev.Lost) > 0 {
			trigger = triggerLoss
		}
		o.trace.record(o.model(), trigger)
	}
}

func (o *observed) OnRetransmissionTimeout(packetsRetransmitted bool) {
	o.wireController.OnRetransmissionTimeout(packetsRetransmitted)
	if o.trace != nil {
		o.trace.record(o.model(), triggerPTO)
	}
}

// OnSpuriousLoss passes the report on: quic-go looks for the method on the
// controller the factory returned, which is this one.
func (o *observed) OnSpuriousLoss(now, packetNumber, sentTime int64) {
	if s, ok := o.wireController.(wireSpuriousLossController); ok {
		s.OnSpuriousLoss(now, packetNumber, sentTime)
	}
	if o.trace != nil {
		o.trace.record(o.model(), triggerSpurious)
	}
}

// publish records the controller's state at now, acked more bytes
// delivered and lost more lost, and the end of a busy period if idle.
func (o *observed) publish(now, acked, lost int64, idle bool) {
	info := congestion.Info(o.Info())
	c := o.conn
	c.mu.Lock()
	defer c.mu.Unlock()
	if info.State != c.stats.State {
		if c.stats.State != "" {
			c.stats.StateTime[c.stats.State] += elapsed(c.stateSince, now)
		}
		c.stateSince = max(c.stateSince, now)
	}
	c.stats.Info = info
	c.stats.Delivered += acked
	c.stats.Lost += lost
	if start := c.busyStart.Load(); idle && start != 0 {
		c.stats.Busy += elapsed(start, now)
		c.busyStart.Store(0)
	}
}
