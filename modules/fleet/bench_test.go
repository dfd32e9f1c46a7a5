package fleet

import (
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"
)

// BenchmarkPurgeVisibleOnFiveNodes times a purge from the API call on one
// of five edges until all five applied it (wait_for 5: each node
// acknowledges after applying, and from then on serves no purged object,
// see TestPartitionedNodeCatchesUp). The baseline in the same run is the
// same call answered once JetStream stored the purge (wait_for 0).
func BenchmarkPurgeVisibleOnFiveNodes(b *testing.B) {
	b.StopTimer()
	ns := startNATS(b)
	o := startOrigin(b)
	var nodes []*node
	for i := range 5 {
		n := startNode(b, "n"+strconv.Itoa(i+1), ns.url(), o, "")
		n.waitConnected()
		nodes = append(nodes, n)
	}
	run := func(waitFor int) []time.Duration {
		lat := make([]time.Duration, 0, b.N)
		for i := range b.N {
			body := `{"urls":["` + objURL + `"],"wait_for":` + strconv.Itoa(waitFor) + `,"timeout":"5s"}`
			start := time.Now()
			code, got := nodes[i%5].purge(body)
			lat = append(lat, time.Since(start))
			if code != http.StatusOK {
				b.Fatalf("purge: %d %s", code, got)
			}
		}
		slices.Sort(lat)
		return lat
	}
	b.StartTimer()
	all := run(5)
	b.StopTimer()
	durable := run(0)
	q := func(l []time.Duration, p float64) float64 { return float64(l[int(p*float64(len(l)-1))]) / 1e6 }
	b.ReportMetric(q(all, .5), "p50-ms")
	b.ReportMetric(q(all, .99), "p99-ms")
	b.ReportMetric(q(durable, .5), "durable-p50-ms")
	b.ReportMetric(q(durable, .99), "durable-p99-ms")
	b.ReportMetric(q(all, .5)/q(durable, .5), "p50-vs-durable")
}
