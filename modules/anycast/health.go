package anycast

import (
	"fmt"
	"time"

	"github.com/lastmile-edge/lastmile/modules/httpcache"
	"github.com/lastmile-edge/lastmile/modules/originlink"
	"github.com/lastmile-edge/lastmile/modules/wtsession"
)

// Status is the node's readiness as the admin API shows it.
type Status struct {
	Ready      bool     `json:"ready"`
	Announced  bool     `json:"announced"`
	Draining   bool     `json:"draining"`
	DrainPhase string   `json:"drain_phase,omitempty"`
	Reasons    []string `json:"reasons,omitempty"`
}

// evaluate reads every input of readiness. The origins and cache stores
// are read from their modules (this package depends on them, never the
// reverse); a nil app means defaults.
func evaluate(a *App, now time.Time) Status {
	var st Status
	if phase, ok := currentDrainPhase(a, now); ok {
		st.Draining = true
		st.DrainPhase = phase
		st.Reasons = append(st.Reasons, "draining (operator)")
	}
	if pools, reachable := originlink.Reachability(); pools > 0 && reachable == 0 {
		st.Reasons = append(st.Reasons, fmt.Sprintf("all %d origins unreachable", pools))
	}
	if err := httpcache.ProbeStores(); err != nil {
		st.Reasons = append(st.Reasons, err.Error())
	}
	st.Ready = len(st.Reasons) == 0
	if a != nil && a.speaker != nil {
		st.Announced = a.speaker.isAnnounced()
	}
	return st
}

// Drain phases: the route is withdrawn and traffic is moving away; then
// WebTransport sessions are finishing; then the node is drained and may
// be stopped (Caddy's own shutdown finishes in-flight requests).
const (
	phaseMoving    = "withdrawn, traffic moving"
	phaseFinishing = "finishing webtransport sessions"
	phaseDrained   = "drained"
)

// currentDrainPhase is the drain's phase at now, if the node is draining.
func currentDrainPhase(a *App, now time.Time) (string, bool) {
	since, ok := drainState.since()
	if !ok {
		return "", false
	}
	return drainPhase(a, now.Sub(since)), true
}

func drainPhase(a *App, elapsed time.Duration) string {
	wait, timeout := 30*time.Second, 60*time.Second
	if a != nil {
		wait, timeout = time.Duration(a.DrainWait), time.Duration(a.DrainTimeout)
	}
	switch {
	case elapsed < wait:
		return phaseMoving
	case wtsession.OpenSessions() > 0 && elapsed < wait+timeout:
		return phaseFinishing
	default:
		return phaseDrained
	}
}
