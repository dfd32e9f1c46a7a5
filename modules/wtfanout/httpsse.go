package wtfanout

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/lastmile-edge/lastmile/modules/wtsession"
)

// HandlesRequest takes the fan-out path's event-stream GETs: the same
// channels for browsers without WebTransport.
func (f *Fanout) HandlesRequest(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}

// ServeRequest streams ?channel= as Server-Sent Events: the replay after
// Last-Event-ID (the header EventSource sends when it reconnects, or the
// last_event_id query parameter), then live events, until the client
// leaves.
func (f *Fanout) ServeRequest(w http.ResponseWriter, r *http.Request) error {
	name := r.URL.Query().Get("channel")
	if !validChannel(name) {
		metrics.errors.WithLabelValues(codeBadChannel).Inc()
		return caddyhttp.Error(http.StatusBadRequest, errors.New("fanout: bad_channel: a channel name is 1-128 bytes of A-Z a-z 0-9 . _ ~ : / -"))
	}
	lastID := r.Header.Get("Last-Event-ID")
	if lastID == "" {
		lastID = r.URL.Query().Get("last_event_id")
	}
	client := wtsession.ClientIP(r)
	if !subscriptionsPerClient.Acquire(client, f.MaxSubscriptionsPerClient) {
		metrics.errors.WithLabelValues(codeTooMany).Inc()
		return caddyhttp.Error(http.StatusTooManyRequests, errors.New("fanout: too_many_subscriptions from this client address"))
	}
	defer subscriptionsPerClient.Release(client)
	sub := newSubscriber(f.Queue, f.Overflow == "close")
	ch, err := f.hub.subscribe(name, sub, lastID)
	if err != nil {
		code := hubErrorCode(err)
		metrics.errors.WithLabelValues(code).Inc()
		status := http.StatusServiceUnavailable
		if code == codeUnknownChannel {
			status = http.StatusNotFound
		}
		return caddyhttp.Error(status, fmt.Errorf("fanout: %s: %w", code, err))
	}
	defer ch.removeSub(sub)
	metrics.subs.WithLabelValues("sse").Inc()
	defer metrics.subs.WithLabelValues("sse").Dec()

	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("X-Accel-Buffering", "no") // tell a buffering proxy in front not to
	w.WriteHeader(http.StatusOK)
	d := &sseDeliverer{w: w, rc: http.NewResponseController(w)}
	defer d.finish()
	if err := d.rc.Flush(); err != nil {
		return nil
	}
	sub.deliver(r.Context(), d, "sse")
	return nil
}

// sseDeliverer writes one subscription as an event stream.
type sseDeliverer struct {
	w  http.ResponseWriter
	rc *http.ResponseController

	mu       sync.Mutex
	finished bool // the handler returned: the writer is no longer ours
	ending   bool // the closing notice is being written, with its own deadline
}

// endNoticeTimeout bounds the write of the notice that ends a stream: the
// subscription's end also interrupts the write in progress (deliver), and
// may do so just before the notice; a client that reads gets it, one that
// does not costs this much more.
const endNoticeTimeout = time.Second

// finish runs as the handler returns.
func (d *sseDeliverer) finish() {
	d.mu.Lock()
	d.finished = true
	d.mu.Unlock()
}

func (d *sseDeliverer) write(b []byte) error {
	if _, err := d.w.Write(b); err != nil {
		return err
	}
	return d.rc.Flush()
}

// interrupt cuts a write to a client that does not read: the response
// ends, and EventSource reconnects with Last-Event-ID.
func (d *sseDeliverer) interrupt() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.finished && !d.ending {
		_ = d.rc.SetWriteDeadline(time.Now())
	}
}

func (d *sseDeliverer) event(e *event) (string, error) { return "sse", d.write(e.sse) }

func (d *sseDeliverer) status(state string) error {
	return d.write(fmt.Appendf(nil, "event: lastmile-status\ndata: {\"state\":%q}\n\n", state))
}

func (d *sseDeliverer) missed(n int64) error {
	return d.write(fmt.Appendf(nil, "event: lastmile-missed\ndata: {\"count\":%d}\n\n", n))
}

// end tells the client why the stream ends; the response then ends.
func (d *sseDeliverer) end(code string) {
	d.mu.Lock()
	d.ending = true
	_ = d.rc.SetWriteDeadline(time.Now().Add(endNoticeTimeout))
	d.mu.Unlock()
	if code == "" {
		_ = d.status(stateFailed)
		return
	}
	_ = d.write(fmt.Appendf(nil, "event: lastmile-error\ndata: {\"code\":%q}\n\n", code))
}
