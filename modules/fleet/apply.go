package fleet

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/lastmile-edge/lastmile/modules/httpcache"
)

// maxPurgeMessage bounds a purge read from the stream, as the purge API
// bounds its body.
const maxPurgeMessage = 1 << 20

// applier applies the stream's purges in sequence order, once each.
type applier struct {
	app     *App
	storage certmagic.Storage
	key     string

	mu   sync.Mutex
	last checkpoint // applied up to last.Seq
	// since is when this node joined the fleet without a checkpoint: it
	// applies purges stored from then on (less a minute of clock skew;
	// applying a few older ones again is harmless).
	since time.Time
	fresh bool // no purge applied yet: sequences before the first are not a gap
	// awayFrom is last.Seq when the connection was lost (away is set
	// then): nats.go's ordered consumer may deliver what this node missed
	// before it subscribes again, so the catch-up is counted from here,
	// not from what was applied by then.
	awayFrom uint64
	away     bool
	// dirty wakes the writer that saves last (saving each purge
	// synchronously would put a storage write on the purge path; a crash
	// before the save re-applies purges, which is harmless).
	dirty chan struct{}
}

func newApplier(a *App, s certmagic.Storage) *applier {
	return &applier{app: a, storage: s, key: checkpointKey(a.Stream, a.Node), dirty: make(chan struct{}, 1), since: time.Now().Add(-time.Minute)}
}

// run consumes the stream until stop closes; after each reconnect it
// starts over from the checkpoint, so a recreated or trimmed stream is
// noticed.
func (p *applier) run(stop, reconnected <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-stop; cancel() }()
	saved := make(chan struct{})
	go func() { defer close(saved); p.saveLoop(ctx) }()
	defer func() { <-saved; p.save() }()

	loaded := false
	reason := "start"
	for ctx.Err() == nil {
		if !loaded {
			c, ok, err := loadCheckpoint(ctx, p.storage, p.key)
			if err != nil {
				p.app.logger.Error("reading the fleet checkpoint; retrying", zap.Error(err))
				if !sleep(ctx, time.Second) {
					return
				}
				continue
			}
			p.mu.Lock()
			if ok {
				p.last = c
			}
			p.mu.Unlock()
			loaded = true
		}
		// A reconnect before this subscription is one it sees already:
		// only one during or after it calls for another.
		select {
		case <-reconnected:
		default:
		}
		cc, err := p.subscribe(ctx, reason)
		if err != nil {
			if p.app.nc.IsConnected() {
				p.app.logger.Warn("subscribing to the purge stream; retrying", zap.Error(err))
			}
			select {
			case <-ctx.Done():
				return
			case <-reconnected:
			case <-time.After(time.Second):
			}
			continue
		}
		select {
		case <-ctx.Done():
			cc.Stop()
			return
		case <-reconnected:
			cc.Stop()
			reason = "reconnect"
		}
	}
}

// subscribe makes the stream if it is missing, catches up with a stream
// that moved on without this node, and consumes from the next sequence.
func (p *applier) subscribe(ctx context.Context, reason string) (jetstream.ConsumeContext, error) {
	a := p.app
	cfg := jetstream.StreamConfig{
		Name:       a.Stream,
		Subjects:   []string{a.Subject},
		Storage:    jetstream.FileStorage,
		MaxAge:     time.Duration(a.MaxAge),
		MaxMsgs:    a.MaxMsgs,
		Replicas:   a.Replicas,
		Duplicates: time.Duration(a.Duplicates),
		Discard:    jetstream.DiscardOld,
	}
	reqCtx, cancel := context.WithTimeout(ctx, time.Duration(a.Timeout))
	defer cancel()
	stream, err := a.js.CreateOrUpdateStream(reqCtx, cfg)
	if err != nil {
		// An operator may manage the stream with rights this node lacks.
		if stream, err = a.js.Stream(reqCtx, a.Stream); err != nil {
			return nil, err
		}
	}
	info, err := stream.Info(reqCtx)
	if err != nil {
		return nil, err
	}
	cfgc := jetstream.OrderedConsumerConfig{FilterSubjects: []string{a.Subject}}
	p.mu.Lock()
	if p.last.StreamCreated.IsZero() {
		// A node new to the fleet: purges from before it started are
		// about content its cache never held.
		p.last = checkpoint{StreamCreated: info.Created}
		p.fresh = true
		if st := info.State; st.FirstSeq > 1 && st.FirstTime.After(p.since) {
			// The stream dropped purges, and the first it kept is newer
			// than since: some it dropped may be too, made while this
			// node served (its first subscription can take several
			// attempts). At start the cache holds little.
			p.softPurgeEverything("gap", "the purge stream dropped purges that may be newer than this node (first kept "+
				strconv.FormatUint(st.FirstSeq, 10)+" from "+st.FirstTime.Format(time.RFC3339)+")")
		}
		cfgc.DeliverPolicy = jetstream.DeliverByStartTimePolicy
		cfgc.OptStartTime = &p.since
	} else {
		p.catchUp(info, reason)
		cfgc.DeliverPolicy = jetstream.DeliverByStartSequencePolicy
		cfgc.OptStartSeq = p.last.Seq + 1
	}
	p.away = false
	p.mu.Unlock()
	cons, err := stream.OrderedConsumer(reqCtx, cfgc)
	if err != nil {
		return nil, err
	}
	return cons.Consume(func(m jetstream.Msg) { p.apply(stream, m) })
}

// catchUp compares the checkpoint with the stream; p.mu is held.
func (p *applier) catchUp(info *jetstream.StreamInfo, reason string) {
	st := info.State
	switch {
	case !p.last.StreamCreated.Equal(info.Created):
		p.softPurgeEverything("stream_reset", "the purge stream was recreated; which purges this node missed is unknown")
		p.last = checkpoint{Seq: st.LastSeq, StreamCreated: info.Created}
	case p.last.Seq+1 < st.FirstSeq:
		p.softPurgeEverything("gap", "the purge stream no longer holds every purge this node missed (first kept "+strconv.FormatUint(st.FirstSeq, 10)+", last applied "+strconv.FormatUint(p.last.Seq, 10)+")")
		p.last.Seq = st.FirstSeq - 1
	case p.catchUpFrom() < st.LastSeq:
		metrics.replays.WithLabelValues(reason).Inc()
		p.app.logger.Info("replaying missed purges", zap.String("reason", reason), zap.Uint64("from", p.catchUpFrom()+1), zap.Uint64("to", st.LastSeq))
	}
	p.markDirty()
}

// catchUpFrom is the last sequence applied before the node fell behind;
// p.mu is held.
func (p *applier) catchUpFrom() uint64 {
	if p.away {
		return min(p.awayFrom, p.last.Seq)
	}
	return p.last.Seq
}

// disconnected marks where the node fell behind; a second disconnect
// before the catch-up keeps the first mark.
func (p *applier) disconnected() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.away {
		p.away, p.awayFrom = true, p.last.Seq
	}
}

func (p *applier) softPurgeEverything(reason, why string) {
	n := httpcache.SoftPurgeEverything()
	metrics.replays.WithLabelValues(reason).Inc()
	p.app.logger.Warn("soft-purged every cached entry: "+why, zap.String("reason", reason), zap.Int("entries", n))
}

// apply applies one purge unless it was applied before, then acknowledges.
func (p *applier) apply(stream jetstream.Stream, m jetstream.Msg) {
	meta, err := m.Metadata()
	if err != nil {
		return
	}
	seq := meta.Sequence.Stream
	p.mu.Lock()
	defer p.mu.Unlock()
	if seq <= p.last.Seq {
		return // delivered again after a consumer reset
	}
	if seq > p.last.Seq+1 && !p.fresh {
		// Sequences skip when the stream dropped messages this node had
		// not applied (or holds other subjects): ask which.
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(p.app.Timeout))
		info, err := stream.Info(ctx)
		cancel()
		if err != nil || info.State.FirstSeq > p.last.Seq+1 {
			p.softPurgeEverything("gap", "purges between sequence "+strconv.FormatUint(p.last.Seq, 10)+" and "+strconv.FormatUint(seq, 10)+" left the stream before this node applied them")
		}
	}
	ack := httpcache.NodeAck{Node: p.app.Node, Seq: seq}
	var req httpcache.PurgeRequest
	if len(m.Data()) > maxPurgeMessage || json.Unmarshal(m.Data(), &req) != nil {
		// A purge this node cannot read is still a purge it must not miss.
		p.softPurgeEverything("undecodable", "purge "+strconv.FormatUint(seq, 10)+" could not be read")
		ack.Error = "undecodable purge; soft-purged everything"
	} else if n, err := httpcache.ApplyPurge(req); err != nil {
		ack.Error = err.Error()
	} else {
		ack.Purged = n
	}
	p.last.Seq = seq
	p.fresh = false
	p.markDirty()
	metrics.applied.Inc()
	if ns, err := strconv.ParseInt(m.Headers().Get(headerPublished), 10, 64); err == nil {
		metrics.lag.Observe(max(time.Since(time.Unix(0, ns)).Seconds(), 0))
	}
	if id := m.Headers().Get("Nats-Msg-Id"); purgeIDOK(id) {
		if data, err := json.Marshal(ack); err == nil {
			_ = p.app.nc.Publish(p.app.AckSubject+"."+id, data)
		}
	}
}

func purgeIDOK(id string) bool { return namePattern.MatchString(id) }

func (p *applier) markDirty() {
	select {
	case p.dirty <- struct{}{}:
	default:
	}
}

func (p *applier) saveLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.dirty:
			p.save()
		}
	}
}

func (p *applier) save() {
	p.mu.Lock()
	c := p.last
	p.mu.Unlock()
	if c.StreamCreated.IsZero() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := storeCheckpoint(ctx, p.storage, p.key, c); err != nil {
		p.app.logger.Error("saving the fleet checkpoint", zap.Error(err))
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}
