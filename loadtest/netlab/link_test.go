package netlab

import (
	"container/heap"
	"math"
	"testing"
	"time"
)

// The stage's statistics match its parameters (deterministic seeds).
func TestStageLossAndDelay(t *testing.T) {
	for _, burst := range []float64{0, 6} {
		s := newStage(Impairment{Delay: 50 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.035, BurstLen: burst}, 42)
		t0 := time.Unix(0, 0)
		var lost, runs, runLen int
		var sum time.Duration
		n := 200000
		prevLost := false
		for i := range n {
			// Spaced wider than the jitter, so the in-order clamp never
			// stretches a delay (it does for packets in quick succession).
			at := t0.Add(time.Duration(i) * 50 * time.Millisecond)
			out, why := s.pass(at, 1200)
			if why == queueDrop {
				t.Fatal("a queue drop on a link with no rate limit")
			}
			if why == lostDrop {
				lost++
				runLen++
				prevLost = true
				continue
			}
			if prevLost {
				runs++
			}
			prevLost = false
			sum += out.Sub(at)
		}
		loss := float64(lost) / float64(n)
		if math.Abs(loss-0.035) > 0.005 {
			t.Errorf("burst %v: loss %.4f, want 0.035", burst, loss)
		}
		mean := sum / time.Duration(n-lost)
		if mean < 49*time.Millisecond || mean > 52*time.Millisecond {
			t.Errorf("burst %v: mean delay %v, want about 50ms", burst, mean)
		}
		meanRun := float64(lost) / float64(runs)
		if burst > 1 && math.Abs(meanRun-burst) > 1 {
			t.Errorf("mean loss burst %.2f packets, want %v", meanRun, burst)
		}
		if burst == 0 && meanRun > 1.1 {
			t.Errorf("independent losses came in runs of %.2f", meanRun)
		}
	}
}

// The bottleneck serialises at its rate and drops beyond its queue, and
// says those drops were the queue's.
func TestStageRateAndQueue(t *testing.T) {
	s := newStage(Impairment{RateBitsPerSec: 12e6, QueuePackets: 10}, 1) // 1 ms per 1500 B
	t0 := time.Unix(0, 0)
	var delivered, queueDrops int
	var last time.Time
	for range 100 { // a burst of 100 packets at once
		switch out, why := s.pass(t0, 1500); why {
		case passed:
			delivered++
			last = out
		case queueDrop:
			queueDrops++
		default:
			t.Fatalf("drop %v on a link without loss", why)
		}
	}
	if delivered+queueDrops != 100 {
		t.Fatalf("%d passed and %d dropped by the queue, of 100", delivered, queueDrops)
	}
	if delivered < 10 || delivered > 12 {
		t.Fatalf("%d of a 100-packet burst passed a 10-packet queue", delivered)
	}
	if got := last.Sub(t0); got < 9*time.Millisecond || got > 12*time.Millisecond {
		t.Fatalf("the last packet left after %v, want about 11 ms", got)
	}
}

// Packets keep their order unless reordering is asked for.
func TestStageOrder(t *testing.T) {
	for _, reorder := range []float64{0, 0.05} {
		s := newStage(Impairment{Delay: 10 * time.Millisecond, Jitter: 8 * time.Millisecond, Reorder: reorder}, 7)
		t0 := time.Unix(0, 0)
		var prev time.Time
		overtaken := 0
		for i := range 10000 {
			out, _ := s.pass(t0.Add(time.Duration(i)*100*time.Microsecond), 100)
			if out.Before(prev) {
				overtaken++
			}
			if out.After(prev) {
				prev = out
			}
		}
		if reorder == 0 && overtaken != 0 {
			t.Fatalf("%d packets reordered without reordering", overtaken)
		}
		if reorder > 0 && overtaken == 0 {
			t.Fatal("no packet reordered")
		}
	}
}

// Packets the stages keep in order leave the direction in that order, also
// when they are due at the same instant (a jittered packet held back behind
// the one before it is due with it): the delivery queue must not reorder
// what the profile does not.
func TestDirectionKeepsOrderOfPacketsDueTogether(t *testing.T) {
	d := newDirection([]Impairment{{Delay: 10 * time.Millisecond, Jitter: 8 * time.Millisecond}}, 7, nil, &LinkStats{})
	t0 := time.Unix(0, 0)
	const n = 10000
	for i := range n {
		d.push([]byte{byte(i >> 8), byte(i)}, t0.Add(time.Duration(i)*100*time.Microsecond))
	}
	sameInstant := 0
	var prevAt time.Time
	for want := range n {
		q := heap.Pop(&d.queue).(queued)
		if got := int(q.pkt[0])<<8 | int(q.pkt[1]); got != want {
			t.Fatalf("packet %d left as number %d", got, want)
		}
		if q.at.Equal(prevAt) {
			sameInstant++
		}
		prevAt = q.at
	}
	if sameInstant == 0 {
		t.Fatal("no two packets due at the same instant: the test proves nothing")
	}
}

// A direction counts the packets and bytes it delivered, whole IP packets
// as written, and none it lost: quic-mobile's bytes on the wire per page
// are these counts.
func TestDirectionCountsWhatItDelivered(t *testing.T) {
	stats := &LinkStats{}
	delivered := make(chan int, 200)
	d := newDirection([]Impairment{{Delay: time.Millisecond, Loss: 0.2, RateBitsPerSec: 100e6, QueuePackets: 1000}}, 3,
		func(pkt []byte) error { delivered <- len(pkt); return nil }, stats)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { d.run(stop); close(done) }()
	for i := range 200 {
		d.push(make([]byte, 40+7*i), time.Now())
	}
	lost := int(stats.Lost.Load()) // decided as each packet entered
	if lost == 0 || lost == 200 {
		t.Fatalf("%d of 200 packets lost at 20%%: the test proves nothing", lost)
	}
	var bytes int
	for range 200 - lost {
		select {
		case n := <-delivered:
			bytes += n
		case <-time.After(10 * time.Second):
			t.Fatal("the direction did not deliver every packet it kept")
		}
	}
	close(stop)
	<-done // run has returned: its counts are final
	if got := stats.Out.Load(); got != int64(200-lost) {
		t.Errorf("Out %d, want %d delivered", got, 200-lost)
	}
	if got := stats.BytesOut.Load(); got != int64(bytes) {
		t.Errorf("BytesOut %d, want the %d bytes delivered", got, bytes)
	}
	if in := stats.In.Load(); in != 200 {
		t.Errorf("In %d, want 200", in)
	}
}
