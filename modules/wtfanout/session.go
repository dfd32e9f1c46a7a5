package wtfanout

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/modules/wtsession"
)

// Control frames are NDJSON lines of at most maxFrame bytes.
const maxFrame = 4096

// Session close codes (application codes of the WebTransport session).
const (
	closeFrameTooLarge webtransport.SessionErrorCode = 0x1f01
	// closeControlStalled: the client does not read its control stream,
	// and the edge will not queue its answers without bound.
	closeControlStalled webtransport.SessionErrorCode = 0x1f02
)

// Stream reset code of a subscription stream the edge gave up on.
const resetSubscription webtransport.StreamErrorCode = 0x1f03

// Error codes of the control protocol.
const (
	codeBadFrame          = "bad_frame"
	codeUnknownOp         = "unknown_op"
	codeBadChannel        = "bad_channel"
	codeUnknownChannel    = "unknown_channel"
	codeTooMany           = "too_many_subscriptions"
	codeRateLimited       = "rate_limited"
	codeOverflow          = "overflow"
	codeUnavailable       = "unavailable"
	controlQueue          = 64                    // answers waiting for the client to read them
	controlBurst          = 32                    // control frames a session may send at once ...
	controlRefillInterval = 50 * time.Millisecond // ... and one more per interval
)

// subscriptionsPerClient counts subscriptions by client IP over every
// session and SSE request (subscriptions outlive config reloads).
var subscriptionsPerClient = wtsession.NewPerClient()

// controlFrame is a client's frame.
type controlFrame struct {
	Op          string `json:"op"`
	Channel     string `json:"channel"`
	LastEventID string `json:"last_event_id"`
	Datagrams   bool   `json:"datagrams"`
}

// reply is an edge's frame on the control stream.
type reply struct {
	Op      string `json:"op"`
	Channel string `json:"channel,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	State   string `json:"state,omitempty"`
	Count   int64  `json:"count,omitempty"`
}

// fanSession is one WebTransport session's subscriptions.
type fanSession struct {
	f      *Fanout
	s      *wtsession.Session
	client string
	ctrl   chan []byte
	writer *connWriter // of the session's QUIC connection

	mu   sync.Mutex
	subs map[string]context.CancelFunc
	wg   sync.WaitGroup

	tokens   int
	refilled time.Time
}

// ServeSession serves the control stream, the session's first
// bidirectional stream, until the session ends.
func (f *Fanout) ServeSession(s *wtsession.Session) {
	metrics.sessions.Inc()
	defer metrics.sessions.Dec()
	ctx, cancel := context.WithCancel(s.Context())
	defer cancel()
	str, err := s.AcceptStream(ctx)
	if err != nil {
		return
	}
	fs := &fanSession{
		f: f, s: s, client: wtsession.ClientIP(s.Request()), ctrl: make(chan []byte, controlQueue),
		writer: acquireConnWriter(connKey(s)),
		subs:   make(map[string]context.CancelFunc), tokens: controlBurst, refilled: time.Now(),
	}
	defer fs.writer.release()
	defer fs.wg.Wait()
	defer cancel()
	go fs.writeControl(ctx, str)
	go fs.keepAlive(ctx)
	fs.readControl(ctx, str)
}

// connKey names the session's QUIC connection: its two addresses, which
// no two live connections share.
func connKey(s *wtsession.Session) string {
	return s.LocalAddr().String() + " " + s.RemoteAddr().String()
}

// writeControl writes the queued answers to the control stream.
func (fs *fanSession) writeControl(ctx context.Context, str *webtransport.Stream) {
	for {
		select {
		case <-ctx.Done():
			return
		case frame := <-fs.ctrl:
			if _, err := str.Write(frame); err != nil {
				return
			}
		}
	}
}

// keepAlive keeps a session with subscriptions from the handler's idle
// timeout: its client only listens, and QUIC notices a client that left.
func (fs *fanSession) keepAlive(ctx context.Context) {
	t := time.NewTicker(fs.s.IdleTimeout() / 2)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fs.mu.Lock()
			active := len(fs.subs) > 0
			fs.mu.Unlock()
			if active {
				fs.s.Touch()
			}
		}
	}
}

// send queues an answer; a client that lets controlQueue answers pile up
// unread is closed.
func (fs *fanSession) send(r reply) {
	b, _ := json.Marshal(r)
	select {
	case fs.ctrl <- append(b, '\n'):
	default:
		fs.s.CloseWithError(closeControlStalled, "control stream not read")
	}
}

func (fs *fanSession) fail(channel, code, msg string) {
	metrics.errors.WithLabelValues(code).Inc()
	fs.send(reply{Op: "error", Channel: channel, Code: code, Message: msg})
}

func (fs *fanSession) readControl(ctx context.Context, str *webtransport.Stream) {
	r := bufio.NewReaderSize(str, maxFrame)
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			metrics.errors.WithLabelValues("frame_too_large").Inc()
			fs.s.CloseWithError(closeFrameTooLarge, "frame_too_large: a control frame exceeds 4096 bytes")
			return
		}
		if err != nil {
			return
		}
		fs.s.Touch()
		if !fs.allow() {
			fs.fail("", codeRateLimited, "too many control frames; slow down")
			continue
		}
		var fr controlFrame
		if err := json.Unmarshal(line, &fr); err != nil {
			fs.fail("", codeBadFrame, "a control frame is one JSON object per line")
			continue
		}
		switch fr.Op {
		case "subscribe":
			fs.subscribe(ctx, fr)
		case "unsubscribe":
			fs.unsubscribe(fr.Channel)
		default:
			fs.fail(fr.Channel, codeUnknownOp, "op must be subscribe or unsubscribe")
		}
	}
}

// allow takes a token of the session's control-frame bucket.
func (fs *fanSession) allow() bool {
	if n := int(time.Since(fs.refilled) / controlRefillInterval); n > 0 {
		fs.tokens = min(controlBurst, fs.tokens+n)
		fs.refilled = fs.refilled.Add(time.Duration(n) * controlRefillInterval)
	}
	if fs.tokens == 0 {
		return false
	}
	fs.tokens--
	return true
}

func (fs *fanSession) subscribe(ctx context.Context, fr controlFrame) {
	name := fr.Channel
	if !validChannel(name) {
		fs.fail(name, codeBadChannel, "a channel name is 1-128 bytes of A-Z a-z 0-9 . _ ~ : / -")
		return
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if _, ok := fs.subs[name]; ok {
		fs.send(reply{Op: "subscribed", Channel: name})
		return
	}
	if len(fs.subs) >= fs.f.MaxSubscriptions {
		fs.fail(name, codeTooMany, "too many subscriptions in this session")
		return
	}
	if !subscriptionsPerClient.Acquire(fs.client, fs.f.MaxSubscriptionsPerClient) {
		fs.fail(name, codeTooMany, "too many subscriptions from this client address")
		return
	}
	sub := newSubscriber(fs.f.Queue, fs.f.Overflow == "close")
	subCtx, cancel := context.WithCancel(ctx)
	d := &streamDeliverer{fs: fs, ctx: subCtx, channel: name, datagrams: fr.Datagrams && !fs.f.NoDatagrams}
	newConnSub(sub, d, fs.writer)
	ch, err := fs.f.hub.subscribe(name, sub, fr.LastEventID)
	if err != nil {
		cancel()
		subscriptionsPerClient.Release(fs.client)
		fs.fail(name, hubErrorCode(err), err.Error())
		return
	}
	fs.send(reply{Op: "subscribed", Channel: name})
	fs.subs[name] = cancel
	metrics.subs.WithLabelValues("webtransport").Inc()
	fs.wg.Go(func() {
		defer func() {
			ch.removeSub(sub)
			subscriptionsPerClient.Release(fs.client)
			metrics.subs.WithLabelValues("webtransport").Dec()
			fs.mu.Lock()
			if fs.subs[name] != nil && subCtx.Err() == nil {
				delete(fs.subs, name)
			}
			fs.mu.Unlock()
			cancel()
			d.close()
		}()
		if d.open() != nil {
			return
		}
		sub.deliver(subCtx, d, "webtransport")
	})
}

func (fs *fanSession) unsubscribe(name string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if cancel, ok := fs.subs[name]; ok {
		cancel()
		delete(fs.subs, name)
	}
}

func hubErrorCode(err error) string {
	if errors.Is(err, errUnknownChannel) {
		return codeUnknownChannel
	}
	return codeUnavailable
}

// validChannel: 1-128 bytes of [A-Za-z0-9._~:/-].
func validChannel(name string) bool {
	if len(name) < 1 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.' || c == '_' || c == '~' || c == ':' || c == '/' || c == '-':
		default:
			return false
		}
	}
	return true
}

// streamDeliverer delivers one subscription over WebTransport: its
// unidirectional stream, datagrams when asked and they fit, notices on
// the control stream.
type streamDeliverer struct {
	fs        *fanSession
	ctx       context.Context
	channel   string
	datagrams bool
	str       *webtransport.SendStream

	interrupted atomic.Bool
}

func (d *streamDeliverer) interrupt() {
	d.interrupted.Store(true)
	if d.str != nil {
		d.str.SetWriteDeadline(time.Now())
	}
}

// open opens the subscription's stream and names its channel.
func (d *streamDeliverer) open() error {
	str, err := d.fs.s.OpenUniStreamSync(d.ctx)
	if err != nil {
		return err
	}
	d.str = str
	head, _ := json.Marshal(struct {
		Channel string `json:"channel"`
	}{d.channel})
	_, err = str.Write(append(head, '\n'))
	return err
}

func (d *streamDeliverer) event(e *event) (string, error) {
	transport, _, err := d.tryEvent(e)
	return transport, err
}

// tryEvent writes e, waiting for the client until the write deadline; a
// stream write cut short returns the rest of its line.
func (d *streamDeliverer) tryEvent(e *event) (transport string, rest []byte, err error) {
	if d.datagrams && d.fs.s.SendDatagram(e.datagram) == nil {
		return "datagram", nil, nil
	}
	n, err := d.str.Write(e.line)
	if err != nil {
		return "stream", e.line[n:], err
	}
	return "stream", nil, nil
}

// setWriteDeadline bounds the stream's writes from now on (zero: no
// bound), unless interrupt cut them: that cut stands.
func (d *streamDeliverer) setWriteDeadline(t time.Time) {
	d.str.SetWriteDeadline(t)
	if d.interrupted.Load() {
		d.str.SetWriteDeadline(time.Now())
	}
}

func (d *streamDeliverer) status(state string) error {
	d.fs.send(reply{Op: "status", Channel: d.channel, State: state})
	return nil
}

func (d *streamDeliverer) missed(n int64) error {
	d.fs.send(reply{Op: "missed", Channel: d.channel, Count: n})
	return nil
}

func (d *streamDeliverer) end(code string) {
	switch code {
	case "":
		d.fs.send(reply{Op: "status", Channel: d.channel, State: stateFailed})
	case codeOverflow:
		d.fs.fail(d.channel, code, "the subscriber's queue overflowed")
	default:
		d.fs.fail(d.channel, code, "the origin does not serve this channel")
	}
}

// close ends the stream: reset when the subscription was torn down or
// ended while a write may have been cut, else with FIN.
func (d *streamDeliverer) close() {
	if d.str == nil {
		return
	}
	if d.ctx.Err() != nil || d.interrupted.Load() {
		d.str.CancelWrite(resetSubscription)
		return
	}
	d.str.Close()
}
