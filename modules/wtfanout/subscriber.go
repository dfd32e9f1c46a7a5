package wtfanout

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// subscriber is one subscription's bounded queue between its channel,
// which never waits for it, and the goroutine that writes to the client.
type subscriber struct {
	queue           chan *event
	closeOnOverflow bool

	missed atomic.Int64           // events dropped since the client was last told
	state  atomic.Pointer[string] // a status change not yet told
	wake   chan struct{}          // a notice is pending

	endOnce sync.Once
	ended   chan struct{}
	endCode string // set before ended is closed

	// batched is set when the connection's writer writes the queue
	// (WebTransport, see connwriter.go); nil for SSE.
	batched *connSub
}

func newSubscriber(queue int, closeOnOverflow bool) *subscriber {
	return &subscriber{
		queue: make(chan *event, queue), closeOnOverflow: closeOnOverflow,
		wake: make(chan struct{}, 1), ended: make(chan struct{}),
	}
}

// offer queues e without waiting; false means the queue was full and the
// subscription must be closed (overflow close). The connection writer to
// signal is added to wakes, or signalled now if wakes is nil.
func (s *subscriber) offer(e *event, wakes *writerWakes) bool {
	select {
	case s.queue <- e:
		if s.batched != nil {
			s.batched.queued(wakes)
		}
		return true
	default:
	}
	if s.closeOnOverflow {
		return false
	}
	s.missed.Add(1)
	s.poke()
	return true
}

// status tells the subscriber the channel's upstream state (the latest
// wins if the client is slow).
func (s *subscriber) status(state string) {
	s.state.Store(&state)
	s.poke()
}

func (s *subscriber) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// end ends the subscription from the channel's side: code is an error
// code for the client (overflow, unknown_channel), or "" for status
// failed.
func (s *subscriber) end(code string) {
	s.endOnce.Do(func() {
		s.endCode = code
		close(s.ended)
	})
}

// deliverer writes to one client over one transport.
type deliverer interface {
	// event writes e and returns the transport that carried it.
	event(e *event) (transport string, err error)
	status(state string) error
	missed(n int64) error
	// end tells the client the channel ended the subscription.
	end(code string)
	// interrupt makes a write that waits for the client fail now; it
	// runs concurrently with the other methods.
	interrupt()
}

// deliver writes the queue to d until ctx ends, the channel ends the
// subscription, or the client cannot be written to. A batched
// subscription's queue is written by its connection's writer and, when
// the client is slow, here (connSub.serve); its notices go on the control
// stream at once, even while an event write waits for the client. Else
// (SSE: one stream) the queue is written here, notices between events.
func (s *subscriber) deliver(ctx context.Context, d deliverer, missedLabel string) {
	// A write blocked by the client's flow control must not outlive the
	// subscription.
	defer context.AfterFunc(ctx, d.interrupt)()
	stopOnEnd := make(chan struct{})
	defer close(stopOnEnd)
	go func() {
		select {
		case <-s.ended:
			d.interrupt()
		case <-stopOnEnd:
		}
	}()
	defer func() {
		select {
		case <-s.ended:
			d.end(s.endCode)
		default:
		}
	}()
	if s.batched != nil {
		go s.notifyUntil(d, missedLabel, stopOnEnd)
		s.batched.serve(ctx.Done(), s.ended)
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.ended:
			return
		case e := <-s.queue:
			if s.notify(d, missedLabel) != nil {
				return
			}
			transport, err := d.event(e)
			if err != nil {
				return
			}
			recordDelivery(e, transport)
		case <-s.wake:
			if s.notify(d, missedLabel) != nil {
				return
			}
		}
	}
}

// notifyUntil tells notices as they come until stop is closed.
func (s *subscriber) notifyUntil(d deliverer, missedLabel string, stop <-chan struct{}) {
	for {
		select {
		case <-s.wake:
			if s.notify(d, missedLabel) != nil {
				return
			}
		case <-stop:
			return
		}
	}
}

// recordDelivery counts an event written to a subscriber and its delay.
func recordDelivery(e *event, transport string) {
	metrics.delivered.WithLabelValues(transport).Inc()
	metrics.delay.WithLabelValues(transport).Observe(time.Since(e.received).Seconds())
}

// notify tells the client of a pending status change and missed events.
func (s *subscriber) notify(d deliverer, missedLabel string) error {
	if st := s.state.Swap(nil); st != nil {
		if err := d.status(*st); err != nil {
			return err
		}
	}
	if n := s.missed.Swap(0); n > 0 {
		metrics.missed.WithLabelValues(missedLabel).Add(float64(n))
		return d.missed(n)
	}
	return nil
}
