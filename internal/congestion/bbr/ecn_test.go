package bbr

import (
	"testing"
	"time"
)

// CE marks from a bottleneck that marks above a shallow threshold are
// treated as congestion (§3.7): BBR's queue stays shorter than on the
// same deep-buffered path without ECN, with no loss and little cost in
// throughput.
func TestECNMarksShortenQueue(t *testing.T) {
	p := path{rate: mbit(20), delay: 20 * time.Millisecond}
	p.queue = 4 * p.bdp()
	run := func(p path) (simStats, float64) {
		s, _ := newBulkBBR(p, 9)
		s.run(5 * time.Second)
		s.stats.maxQueue = 0 // from here on
		before := s.stats
		s.run(30 * time.Second)
		return diffStats(before, s.stats), goodput(p, before, s.stats, 30*time.Second)
	}
	plain, plainPut := run(p)
	marked := p
	marked.ecnAbove = p.bdp() / 5
	ecn, ecnPut := run(marked)
	t.Logf("without ECN: goodput %.3f, queue delay %v, max queue %d; with CE above %d bytes: goodput %.3f, queue delay %v, max queue %d, %d CE marks",
		plainPut, plain.meanQueueDelay(), plain.maxQueue, marked.ecnAbove, ecnPut, ecn.meanQueueDelay(), ecn.maxQueue, ecn.ceMarks)
	if ecn.ceMarks == 0 {
		t.Fatal("no CE marks: the test did not exercise ECN")
	}
	if ecn.meanQueueDelay() >= plain.meanQueueDelay() {
		t.Errorf("queue delay %v with ECN, not below %v without", ecn.meanQueueDelay(), plain.meanQueueDelay())
	}
	if ecnPut < 0.85 {
		t.Errorf("goodput %.3f with ECN, want at least 0.85", ecnPut)
	}
}
