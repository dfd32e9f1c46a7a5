package anycast

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/osrg/gobgp/v4/pkg/server"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"
)

// BGPConfig configures the embedded GoBGP speaker. It dials its peers and
// does not listen (port 179 needs privileges and is usually the router
// daemon's on the same host).
type BGPConfig struct {
	// RouterID is the BGP identifier, an IPv4 address.
	RouterID string `json:"router_id"`
	// LocalASN is this node's AS number.
	LocalASN uint32 `json:"local_asn"`
	// Peers are the routers to announce to.
	Peers []Peer `json:"peers"`
	// Prefixes are the anycast prefixes (CIDR) announced while ready.
	Prefixes []string `json:"prefixes"`
	// NextHop of the announcements (IPv4 for IPv4 prefixes). Default: the
	// router id. IPv6 prefixes need NextHop6.
	NextHop  string `json:"next_hop,omitempty"`
	NextHop6 string `json:"next_hop6,omitempty"`
	// ConnectRetry is how soon a lost session is redialled. Default 5s
	// (GoBGP's is 120s, too long to be without the route after a router
	// restart).
	ConnectRetry caddy.Duration `json:"connect_retry,omitempty"`
}

// Peer is one BGP neighbour.
type Peer struct {
	Address string `json:"address"`
	ASN     uint32 `json:"asn"`
	// Port of the peer. Default 179.
	Port uint16 `json:"port,omitempty"`
	// Password for TCP MD5 signatures (RFC 2385), as routers expect.
	Password string `json:"password,omitempty"`
}

func (c *BGPConfig) validate() error {
	id, err := netip.ParseAddr(c.RouterID)
	if err != nil || !id.Is4() {
		return fmt.Errorf("router_id %q: want an IPv4 address", c.RouterID)
	}
	if c.LocalASN == 0 {
		return errors.New("local_asn: required")
	}
	if len(c.Peers) == 0 {
		return errors.New("at least one peer is required")
	}
	for _, p := range c.Peers {
		if _, err := netip.ParseAddr(p.Address); err != nil {
			return fmt.Errorf("peer %q: want an IP address", p.Address)
		}
		if p.ASN == 0 {
			return fmt.Errorf("peer %s: asn required", p.Address)
		}
	}
	if len(c.Prefixes) == 0 {
		return errors.New("at least one prefix is required")
	}
	nh4, nh6 := c.nextHops()
	for _, s := range c.Prefixes {
		p, err := netip.ParsePrefix(s)
		if err != nil || p.Masked() != p {
			return fmt.Errorf("prefix %q: want a network in CIDR form", s)
		}
		if p.Addr().Is4() && !nh4.Is4() {
			return fmt.Errorf("prefix %s: next_hop %q: want an IPv4 address", s, c.NextHop)
		}
		if p.Addr().Is6() && !nh6.Is6() {
			return fmt.Errorf("prefix %s: next_hop6 %q: want an IPv6 address", s, c.NextHop6)
		}
	}
	if c.ConnectRetry < 0 {
		return fmt.Errorf("connect_retry %s: want a positive duration", time.Duration(c.ConnectRetry))
	}
	return nil
}

func (c *BGPConfig) nextHops() (v4, v6 netip.Addr) {
	nh := c.NextHop
	if nh == "" {
		nh = c.RouterID
	}
	v4, _ = netip.ParseAddr(nh)
	v6, _ = netip.ParseAddr(c.NextHop6)
	return v4, v6
}

// speakers keeps a speaker across config reloads while its config is
// unchanged: a reload must not reset BGP sessions (a route flap).
var speakers = caddy.NewUsagePool()

// speaker is a running GoBGP server and whether it announces.
type speaker struct {
	key   string
	cfg   *BGPConfig
	srv   *server.BgpServer
	paths []*apiutil.Path

	mu        sync.Mutex
	announced bool
}

func loadSpeaker(cfg *BGPConfig, logger *zap.Logger) (*speaker, error) {
	key, _ := json.Marshal(cfg)
	v, _, err := speakers.LoadOrNew(string(key), func() (caddy.Destructor, error) {
		return startSpeaker(string(key), cfg, logger.Named("bgp"))
	})
	if err != nil {
		return nil, fmt.Errorf("anycast: starting BGP: %w", err)
	}
	return v.(*speaker), nil
}

func startSpeaker(key string, cfg *BGPConfig, logger *zap.Logger) (*speaker, error) {
	paths, err := cfg.paths()
	if err != nil {
		return nil, err
	}
	srv := server.NewBgpServer(server.LoggerOption(slog.New(zapslog.NewHandler(logger.Core())), new(slog.LevelVar)))
	go srv.Serve()
	ctx := context.Background()
	if err := srv.StartBgp(ctx, &api.StartBgpRequest{Global: &api.Global{
		Asn: cfg.LocalASN, RouterId: cfg.RouterID, ListenPort: -1,
	}}); err != nil {
		srv.Stop()
		return nil, err
	}
	retry := uint64(5)
	if cfg.ConnectRetry > 0 {
		retry = uint64(max(time.Duration(cfg.ConnectRetry)/time.Second, 1))
	}
	for _, p := range cfg.Peers {
		port := uint32(179)
		if p.Port != 0 {
			port = uint32(p.Port)
		}
		peer := &api.Peer{
			Conf:      &api.PeerConf{NeighborAddress: p.Address, PeerAsn: p.ASN, AuthPassword: p.Password},
			Transport: &api.Transport{RemotePort: port},
			Timers:    &api.Timers{Config: &api.TimersConfig{ConnectRetry: retry}},
			AfiSafis:  cfg.afiSafis(),
		}
		if err := srv.AddPeer(ctx, &api.AddPeerRequest{Peer: peer}); err != nil {
			srv.Stop()
			return nil, fmt.Errorf("peer %s: %w", p.Address, err)
		}
	}
	return &speaker{key: key, cfg: cfg, srv: srv, paths: paths}, nil
}

// afiSafis enables the families the prefixes need on every session.
func (c *BGPConfig) afiSafis() []*api.AfiSafi {
	var v4, v6 bool
	for _, s := range c.Prefixes {
		p := netip.MustParsePrefix(s)
		v4, v6 = v4 || p.Addr().Is4(), v6 || p.Addr().Is6()
	}
	var out []*api.AfiSafi
	add := func(afi api.Family_Afi) {
		out = append(out, &api.AfiSafi{Config: &api.AfiSafiConfig{Family: &api.Family{Afi: afi, Safi: api.Family_SAFI_UNICAST}, Enabled: true}})
	}
	if v4 {
		add(api.Family_AFI_IP)
	}
	if v6 {
		add(api.Family_AFI_IP6)
	}
	return out
}

// paths are the announcements, one per prefix.
func (c *BGPConfig) paths() ([]*apiutil.Path, error) {
	nh4, nh6 := c.nextHops()
	var out []*apiutil.Path
	for _, s := range c.Prefixes {
		p := netip.MustParsePrefix(s)
		nlri, err := bgp.NewIPAddrPrefix(p)
		if err != nil {
			return nil, fmt.Errorf("prefix %s: %w", s, err)
		}
		origin := bgp.NewPathAttributeOrigin(bgp.BGP_ORIGIN_ATTR_TYPE_IGP)
		path := &apiutil.Path{Family: bgp.RF_IPv4_UC, Nlri: nlri}
		if p.Addr().Is4() {
			nh, err := bgp.NewPathAttributeNextHop(nh4)
			if err != nil {
				return nil, err
			}
			path.Attrs = []bgp.PathAttributeInterface{origin, nh}
		} else {
			path.Family = bgp.RF_IPv6_UC
			mp, err := bgp.NewPathAttributeMpReachNLRI(bgp.RF_IPv6_UC, []bgp.PathNLRI{{NLRI: nlri}}, nh6)
			if err != nil {
				return nil, err
			}
			path.Attrs = []bgp.PathAttributeInterface{origin, mp}
		}
		out = append(out, path)
	}
	return out, nil
}

func (s *speaker) isAnnounced() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.announced
}

// set announces or withdraws the prefixes, if that changes anything.
func (s *speaker) set(announce bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if announce == s.announced {
		return nil
	}
	var err error
	if announce {
		_, err = s.srv.AddPath(apiutil.AddPathRequest{Paths: s.paths})
	} else {
		err = s.srv.DeletePath(apiutil.DeletePathRequest{DeleteAll: true})
	}
	if err == nil {
		s.announced = announce
	}
	return err
}

// Destruct withdraws and closes the sessions (a NOTIFICATION: peers drop
// the routes at once rather than after the hold time).
func (s *speaker) Destruct() error {
	s.srv.Stop()
	return nil
}
