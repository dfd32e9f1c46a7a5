package originlink

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2"
)

func init() {
	caddy.RegisterModule(AdminAPI{})
}

// OriginView is one origin's pool as the admin API shows it.
type OriginView struct {
	Origin       string     `json:"origin"`
	Protocol     string     `json:"protocol"`
	Dials        int64      `json:"dials"`
	DialFailures int64      `json:"dial_failures"`
	Links        []LinkView `json:"links"`
}

// LinkView is one connection: an `ss -ti` line.
type LinkView struct {
	Slot          int           `json:"slot"`
	Local         string        `json:"local"`
	Remote        string        `json:"remote"`
	Age           time.Duration `json:"age_ns"`
	StreamsActive int           `json:"streams_active"`
	PingRTT       time.Duration `json:"ping_rtt_ns"`
	TCP           LinkInfo      `json:"tcp_info"`
	HasTCPInfo    bool          `json:"has_tcp_info"`
	QUIC          *QUICInfo     `json:"quic_info,omitempty"`
}

// QUICInfo is an HTTP/3 link's path as QUIC measures it.
type QUICInfo struct {
	SmoothedRTT   time.Duration `json:"smoothed_rtt_ns"`
	RTTVar        time.Duration `json:"rtt_var_ns"`
	MinRTT        time.Duration `json:"min_rtt_ns"`
	BytesSent     uint64        `json:"bytes_sent"`
	BytesReceived uint64        `json:"bytes_received"`
	PacketsLost   uint64        `json:"packets_lost"`
}

func (p *pool) view() OriginView {
	v := OriginView{Origin: p.addr, Protocol: "h2", Dials: p.dials.Load(), DialFailures: p.dialFailures.Load()}
	switch {
	case p.t.Protocol == "h3":
		v.Protocol = "h3"
	case p.t.TLS == nil:
		v.Protocol = "h2c"
	}
	if p.http1.Load() {
		v.Protocol = "h1"
	}
	for _, l := range p.liveLinks() {
		lv := LinkView{Slot: l.slot, Age: time.Since(l.created), StreamsActive: l.cc.streams(), PingRTT: time.Duration(l.pingRTT.Load())}
		if l.quic != nil {
			st := l.quic.ConnectionStats()
			lv.Local, lv.Remote = l.quic.LocalAddr().String(), l.quic.RemoteAddr().String()
			lv.QUIC = &QUICInfo{SmoothedRTT: st.SmoothedRTT, RTTVar: st.MeanDeviation, MinRTT: st.MinRTT,
				BytesSent: st.BytesSent, BytesReceived: st.BytesReceived, PacketsLost: st.PacketsLost}
		} else {
			lv.Local, lv.Remote = l.tcp.LocalAddr().String(), l.tcp.RemoteAddr().String()
			lv.TCP, lv.HasTCPInfo = readLinkInfo(l.tcp)
		}
		v.Links = append(v.Links, lv)
	}
	return v
}

// AdminAPI serves GET /lastmile/origins: every origin link's state.
type AdminAPI struct{}

// CaddyModule returns the Caddy module information.
func (AdminAPI) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "admin.api.origin_links",
		New: func() caddy.Module { return new(AdminAPI) },
	}
}

// Routes returns the route.
func (AdminAPI) Routes() []caddy.AdminRoute {
	return []caddy.AdminRoute{{Pattern: "/lastmile/origins", Handler: caddy.AdminHandlerFunc(serveOrigins)}}
}

func serveOrigins(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodGet {
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("method %s not allowed", r.Method)}
	}
	w.Header().Set("Content-Type", "application/json")
	views := snapshot()
	if views == nil {
		views = []OriginView{}
	}
	return json.NewEncoder(w).Encode(views)
}

// Interface guards
var _ caddy.AdminRouter = (*AdminAPI)(nil)
