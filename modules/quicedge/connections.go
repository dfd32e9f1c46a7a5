package quicedge

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/quic-go/quic-go"

	"github.com/lastmile-edge/lastmile/internal/congestion/quichook"
)

func init() {
	caddy.RegisterModule(ConnectionsAPI{})
}

// liveConns are the open QUIC connections of every endpoint.
var liveConns sync.Map // *quic.Conn -> *quichook.Conn

// ConnectionView is one open QUIC connection on the admin endpoint.
type ConnectionView struct {
	Remote      string        `json:"remote"`
	Local       string        `json:"local"`
	SmoothedRTT time.Duration `json:"smoothed_rtt_ns"`
	MinRTT      time.Duration `json:"min_rtt_ns"`
	BytesSent   uint64        `json:"bytes_sent"`
	PacketsLost uint64        `json:"packets_lost"`
	// The controller; empty when quic-go lacks lastmile's hook.
	Controller       string                   `json:"controller,omitempty"`
	State            string                   `json:"state,omitempty"`
	CongestionWindow int64                    `json:"cwnd_bytes"`
	PacingRate       int64                    `json:"pacing_rate_bytes_per_second"`
	DeliveryRate     int64                    `json:"delivery_rate_bytes_per_second"`
	Bandwidth        int64                    `json:"bottleneck_bandwidth_bytes_per_second,omitempty"`
	Paths            int                      `json:"paths,omitempty"`
	StateTime        map[string]time.Duration `json:"state_time_ns,omitempty"`
}

func connectionViews() []ConnectionView {
	views := []ConnectionView{}
	liveConns.Range(func(k, v any) bool {
		conn, cc := k.(*quic.Conn), v.(*quichook.Conn)
		st := conn.ConnectionStats()
		view := ConnectionView{
			Remote: conn.RemoteAddr().String(), Local: conn.LocalAddr().String(),
			SmoothedRTT: st.SmoothedRTT, MinRTT: st.MinRTT, BytesSent: st.BytesSent, PacketsLost: st.PacketsLost,
		}
		if s := cc.Stats(); s.Paths > 0 {
			view.Controller, view.State, view.Paths, view.StateTime = s.Controller, s.State, s.Paths, s.StateTime
			view.CongestionWindow, view.PacingRate, view.Bandwidth = s.CongestionWindow, s.PacingRate, s.BottleneckBandwidth
			view.DeliveryRate = int64(s.DeliveryRate())
		}
		views = append(views, view)
		return true
	})
	sort.Slice(views, func(i, j int) bool { return views[i].Remote < views[j].Remote })
	return views
}

// ConnectionsAPI serves GET /lastmile/quic/connections: every open QUIC
// connection's path and congestion controller.
type ConnectionsAPI struct{}

// CaddyModule returns the Caddy module information.
func (ConnectionsAPI) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "admin.api.lastmile_quic_connections",
		New: func() caddy.Module { return new(ConnectionsAPI) },
	}
}

// Routes returns the route.
func (ConnectionsAPI) Routes() []caddy.AdminRoute {
	return []caddy.AdminRoute{{Pattern: "/lastmile/quic/connections", Handler: caddy.AdminHandlerFunc(serveConnections)}}
}

func serveConnections(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodGet {
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("method %s not allowed", r.Method)}
	}
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(connectionViews())
}

// Interface guards
var _ caddy.AdminRouter = (*ConnectionsAPI)(nil)
