// Package netlab is lastmile's network lab: a user-space link emulator
// that moves IP packets between TUN devices in network namespaces with
// delay, jitter, loss, reordering and a bottleneck rate, and the
// topologies and workloads that reproduce the field results lastmile's
// design rests on. It shapes IP packets, so TCP and QUIC meet the same
// link. (This kernel has no netem qdisc; Tailscale's natlab is the model
// of a network simulator as a first-class test tool.)
package netlab

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"time"
)

//go:embed profiles.json
var defaultProfiles []byte

// Profile is one emulated link, applied in each direction.
type Profile struct {
	RTTms        float64  `json:"rtt_ms"`
	JitterMs     float64  `json:"jitter_ms"`
	Loss         float64  `json:"loss"`
	BurstLen     float64  `json:"burst_len,omitempty"`
	Reorder      float64  `json:"reorder"`
	RateMbit     *float64 `json:"rate_mbit"`
	QueuePackets int      `json:"queue_packets,omitempty"`
	Source       string   `json:"source"`
}

// Profiles are the named profiles of a profiles file.
type Profiles map[string]Profile

// LoadProfiles reads a profiles file, or the embedded one if path is "".
func LoadProfiles(path string) (Profiles, error) {
	data := defaultProfiles
	if path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return nil, err
		}
	}
	var f struct {
		Profiles Profiles `json:"profiles"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("profiles: %w", err)
	}
	for name, p := range f.Profiles {
		if err := p.validate(); err != nil {
			return nil, fmt.Errorf("profile %s: %w", name, err)
		}
	}
	return f.Profiles, nil
}

// Get returns the named profile or an error listing the known ones.
func (ps Profiles) Get(name string) (Profile, error) {
	p, ok := ps[name]
	if !ok {
		names := make([]string, 0, len(ps))
		for n := range ps {
			names = append(names, n)
		}
		sort.Strings(names)
		return Profile{}, fmt.Errorf("no profile %q (have %v)", name, names)
	}
	return p, nil
}

func (p Profile) validate() error {
	switch {
	case p.RTTms < 0 || p.JitterMs < 0:
		return fmt.Errorf("negative delay")
	case p.Loss < 0 || p.Loss >= 1 || p.Reorder < 0 || p.Reorder >= 1:
		return fmt.Errorf("loss and reorder are fractions in [0, 1)")
	case p.RateMbit != nil && *p.RateMbit <= 0:
		return fmt.Errorf("rate_mbit must be positive or null")
	case p.BurstLen < 0 || p.QueuePackets < 0:
		return fmt.Errorf("negative burst_len or queue_packets")
	}
	return nil
}

// Impairment is what one direction of a profile does to packets.
func (p Profile) Impairment() Impairment {
	im := Impairment{
		Delay:    time.Duration(p.RTTms / 2 * float64(time.Millisecond)),
		Jitter:   time.Duration(p.JitterMs * float64(time.Millisecond)),
		Loss:     p.Loss,
		BurstLen: p.BurstLen,
		Reorder:  p.Reorder,
	}
	if p.RateMbit != nil {
		im.RateBitsPerSec = *p.RateMbit * 1e6
		im.QueuePackets = p.QueuePackets
		if im.QueuePackets == 0 {
			// One bandwidth-delay product of 1500-byte packets: enough
			// buffer for one flow to fill the link, no bufferbloat beyond.
			bdp := im.RateBitsPerSec * (p.RTTms / 1000) / 8 / 1500
			im.QueuePackets = max(64, int(bdp))
		}
	}
	return im
}
