package netlab

import (
	"container/heap"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Impairment is one direction of an emulated link.
//
// Each packet's fate is computed when it enters: it may be lost (at random,
// or in bursts of mean length BurstLen by a two-state Gilbert-Elliott
// chain with the same mean loss); it waits its turn at the bottleneck
// (RateBitsPerSec, drop-tail queue of QueuePackets); then it takes Delay
// plus a jitter drawn uniformly from [-Jitter/2, +Jitter/2] (so Jitter is
// the spread and the mean one-way delay stays Delay). Packets leave in the
// order they came unless Reorder picks one: that one is held back an extra
// jitter-sized (at least 1 ms) amount and may be overtaken.
type Impairment struct {
	Delay          time.Duration
	Jitter         time.Duration
	Loss           float64
	BurstLen       float64
	Reorder        float64
	RateBitsPerSec float64
	QueuePackets   int
}

// stage is the state of one Impairment in one direction.
type stage struct {
	im        Impairment
	rng       *rand.Rand
	badState  bool
	busyUntil time.Time
	lastOut   time.Time
}

func newStage(im Impairment, seed uint64) *stage {
	return &stage{im: im, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// lost decides a packet's loss.
func (s *stage) lost() bool {
	p := s.im.Loss
	if p <= 0 {
		return false
	}
	if s.im.BurstLen <= 1 {
		return s.rng.Float64() < p
	}
	// Gilbert-Elliott: every packet in the bad state is lost; bursts last
	// BurstLen packets on average; the good->bad rate keeps the mean loss p.
	leave := 1 / s.im.BurstLen
	enter := p * leave / (1 - p)
	if s.badState {
		s.badState = s.rng.Float64() >= leave
	} else {
		s.badState = s.rng.Float64() < enter
	}
	return s.badState
}

// drop says why a stage did not pass a packet.
type drop int

const (
	passed    drop = iota
	lostDrop       // random (or bursty) loss: the radio's, not congestion
	queueDrop      // the drop-tail queue was full: congestion
)

// pass computes when a packet of size bytes entering at t leaves the
// stage, or why it was dropped.
func (s *stage) pass(t time.Time, size int) (time.Time, drop) {
	if s.lost() {
		return t, lostDrop
	}
	out := t
	if s.im.RateBitsPerSec > 0 {
		start := t
		if s.busyUntil.After(t) {
			queued := s.busyUntil.Sub(t).Seconds() * s.im.RateBitsPerSec / 8 / 1500
			if int(queued) >= s.im.QueuePackets {
				return t, queueDrop
			}
			start = s.busyUntil
		}
		out = start.Add(time.Duration(float64(size*8) / s.im.RateBitsPerSec * float64(time.Second)))
		s.busyUntil = out
	}
	out = out.Add(s.im.Delay)
	if s.im.Jitter > 0 {
		out = out.Add(time.Duration((s.rng.Float64() - 0.5) * float64(s.im.Jitter)))
	}
	if s.im.Reorder > 0 && s.rng.Float64() < s.im.Reorder {
		extra := max(s.im.Jitter, time.Millisecond)
		return out.Add(time.Duration(s.rng.Float64() * float64(extra))), passed
	}
	if out.Before(s.lastOut) {
		out = s.lastOut
	}
	s.lastOut = out
	return out, passed
}

// LinkStats counts what one direction did. Drops are counted by cause, so
// an experiment can tell a sender that fills the queue (QueueDrops) from
// one that meets the link's random loss (Lost).
type LinkStats struct {
	In, Out          atomic.Int64
	Lost, QueueDrops atomic.Int64
	BytesOut         atomic.Int64
}

// direction moves packets from one TUN to another through stages.
type direction struct {
	mu     sync.Mutex
	stages []*stage
	queue  packetHeap
	pushed uint64 // packets queued so far: the order among those due together
	wake   chan struct{}
	write  func([]byte) error
	stats  *LinkStats
}

func newDirection(stages []Impairment, seed uint64, write func([]byte) error, stats *LinkStats) *direction {
	d := &direction{wake: make(chan struct{}, 1), write: write, stats: stats}
	for i, im := range stages {
		d.stages = append(d.stages, newStage(im, seed+uint64(i)*7919))
	}
	return d
}

// push takes a packet in (the caller hands over pkt).
func (d *direction) push(pkt []byte, now time.Time) {
	d.stats.In.Add(1)
	d.mu.Lock()
	t := now
	for _, s := range d.stages {
		var why drop
		if t, why = s.pass(t, len(pkt)); why != passed {
			d.mu.Unlock()
			if why == queueDrop {
				d.stats.QueueDrops.Add(1)
			} else {
				d.stats.Lost.Add(1)
			}
			return
		}
	}
	d.pushed++
	heap.Push(&d.queue, queued{at: t, seq: d.pushed, pkt: pkt})
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// run delivers packets when due until stop closes.
func (d *direction) run(stop <-chan struct{}) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		d.mu.Lock()
		var wait time.Duration = time.Hour
		var due [][]byte
		now := time.Now()
		for d.queue.Len() > 0 {
			next := d.queue[0]
			if next.at.After(now) {
				wait = next.at.Sub(now)
				break
			}
			heap.Pop(&d.queue)
			due = append(due, next.pkt)
		}
		d.mu.Unlock()
		for _, pkt := range due {
			if err := d.write(pkt); err == nil {
				d.stats.Out.Add(1)
				d.stats.BytesOut.Add(int64(len(pkt)))
			}
		}
		if len(due) > 0 {
			continue
		}
		timer.Reset(wait)
		select {
		case <-stop:
			return
		case <-d.wake:
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
		case <-timer.C:
		}
	}
}

type queued struct {
	at  time.Time
	seq uint64
	pkt []byte
}

// packetHeap orders packets by delivery time, and those due at the same
// instant by arrival: a heap alone does not keep the order of equal keys,
// and a stage holds a jittered packet back to the instant of the one before
// it, so without seq the link reordered packets no profile asked it to.
type packetHeap []queued

func (h packetHeap) Len() int { return len(h) }
func (h packetHeap) Less(i, j int) bool {
	return h[i].at.Before(h[j].at) || h[i].at.Equal(h[j].at) && h[i].seq < h[j].seq
}
func (h packetHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *packetHeap) Push(x any)   { *h = append(*h, x.(queued)) }
func (h *packetHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
