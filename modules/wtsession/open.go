package wtsession

import dto "github.com/prometheus/client_model/go"

// OpenSessions is the number of WebTransport sessions open now, read from
// the gauge that counts them; a draining node waits for it to reach zero.
func OpenSessions() int {
	var m dto.Metric
	if err := metrics.open.Write(&m); err != nil {
		return 0
	}
	return int(m.GetGauge().GetValue())
}
