package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// connectionView is what the admin endpoint says of one QUIC connection.
type connectionView struct {
	Remote       string        `json:"remote"`
	Local        string        `json:"local"`
	SmoothedRTT  time.Duration `json:"smoothed_rtt_ns"`
	Controller   string        `json:"controller"`
	State        string        `json:"state"`
	Cwnd         int64         `json:"cwnd_bytes"`
	PacingRate   int64         `json:"pacing_rate_bytes_per_second"`
	DeliveryRate int64         `json:"delivery_rate_bytes_per_second"`
}

func (e *testEdge) quicConnections(t *testing.T) []connectionView {
	t.Helper()
	resp, err := http.Get("http://" + e.AdminAddr + "/lastmile/quic/connections")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var all []connectionView
	if err := json.NewDecoder(resp.Body).Decode(&all); err != nil {
		t.Fatal(err)
	}
	var mine []connectionView
	for _, v := range all {
		if strings.HasSuffix(v.Local, ":"+e.Port) {
			mine = append(mine, v)
		}
	}
	return mine
}

// An open HTTP/3 connection shows on the admin endpoint with its
// congestion controller's state; ended, it leaves the controller's window,
// rates and time per state in the metrics.
func TestQUICConnectionControllerOnAdminAndInMetrics(t *testing.T) {
	e := startEdge(t)
	c, tr := e.h3Client(t)
	for i := range 5 {
		get(t, c, e.URL(fmt.Sprintf("/page/%d", i)))
	}
	views := e.quicConnections(t)
	if len(views) != 1 {
		t.Fatalf("admin shows %d connections to this edge, want 1: %+v", len(views), views)
	}
	v := views[0]
	if v.Controller == "" || v.State == "" || v.Cwnd <= 0 || v.PacingRate <= 0 || v.DeliveryRate <= 0 || v.SmoothedRTT <= 0 {
		t.Fatalf("connection view lacks the controller's state: %+v", v)
	}
	cwnd := fmt.Sprintf(`lastmile_quic_congestion_window_bytes_count{controller=%q}`, v.Controller)
	delivery := fmt.Sprintf(`lastmile_quic_delivery_rate_bytes_per_second_count{controller=%q}`, v.Controller)
	cwnd0, delivery0 := e.metric(t, cwnd), e.metric(t, delivery)
	tr.Close()
	waitMetric(t, e, cwnd, cwnd0+1)
	waitMetric(t, e, delivery, delivery0+1)
	state := fmt.Sprintf(`lastmile_quic_congestion_state_seconds_total{controller=%q,state=%q}`, v.Controller, v.State)
	if e.metric(t, state) <= 0 {
		t.Errorf("%s not counted", state)
	}
}
