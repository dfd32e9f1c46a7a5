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
}

func (p *pool) view() OriginView {
	v := OriginView{Origin: p.addr, Protocol: "h2", Dials: p.dials.Load(), DialFailures: p.dialFailures.Load()}
	if p.t.TLS == nil {
		v.Protocol = "h2c"
	}
	if p.http1.Load() {
		v.Protocol = "h1"
	}
	for _, l := range p.liveLinks() {
		lv := LinkView{
			Slot: l.slot, Local: l.tcp.LocalAddr().String(), Remote: l.tcp.RemoteAddr().String(),
			Age: time.Since(l.created), StreamsActive: l.cc.State().StreamsActive, PingRTT: time.Duration(l.pingRTT.Load()),
		}
		lv.TCP, lv.HasTCPInfo = readLinkInfo(l.tcp)
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
