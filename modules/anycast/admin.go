package anycast

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

// AdminAPI serves the health model on the admin API:
//
//	GET  /lastmile/health   liveness: 200 while the check loop runs
//	GET  /lastmile/ready    readiness: 200 ready, 503 not, with reasons
//	POST /lastmile/drain    withdraw and drain (?wait=1: answer when drained)
//	POST /lastmile/undrain  end a drain; re-announce after the hold-down
//
// Drain is no more powerful than the rest of the admin API (which can stop
// the process), so it relies on the admin API's own protection: a local
// listener, origin checks, or remote admin with mutual TLS.
type AdminAPI struct{}

// CaddyModule returns the Caddy module information.
func (AdminAPI) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "admin.api.lastmile_health", New: func() caddy.Module { return new(AdminAPI) }}
}

// Routes returns the routes.
func (AdminAPI) Routes() []caddy.AdminRoute {
	return []caddy.AdminRoute{
		{Pattern: "/lastmile/health", Handler: caddy.AdminHandlerFunc(serveHealth)},
		{Pattern: "/lastmile/ready", Handler: caddy.AdminHandlerFunc(serveReady)},
		{Pattern: "/lastmile/drain", Handler: caddy.AdminHandlerFunc(serveDrain)},
		{Pattern: "/lastmile/undrain", Handler: caddy.AdminHandlerFunc(serveUndrain)},
	}
}

func method(r *http.Request, m string) error {
	if r.Method != m {
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("method %s not allowed", r.Method)}
	}
	return nil
}

// serveHealth is liveness: the process answers and, with an anycast app,
// its check loop has run within three intervals (a stuck loop would leave
// a route announced that nobody watches).
func serveHealth(w http.ResponseWriter, r *http.Request) error {
	if err := method(r, http.MethodGet); err != nil {
		return err
	}
	if a := current.Load(); a != nil {
		if last := time.Unix(0, a.lastRun.Load()); time.Since(last) > 3*time.Duration(a.CheckInterval) {
			return caddy.APIError{HTTPStatus: http.StatusServiceUnavailable, Err: fmt.Errorf("health check loop last ran %s ago", time.Since(last).Round(time.Millisecond))}
		}
	}
	return writeJSON(w, http.StatusOK, map[string]bool{"alive": true})
}

func serveReady(w http.ResponseWriter, r *http.Request) error {
	if err := method(r, http.MethodGet); err != nil {
		return err
	}
	return writeStatus(w)
}

// serveDrain starts a drain and answers with the status; with ?wait=1 it
// answers once the drain is over (or the client gives up).
func serveDrain(w http.ResponseWriter, r *http.Request) error {
	if err := method(r, http.MethodPost); err != nil {
		return err
	}
	drain()
	if r.URL.Query().Get("wait") != "" {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		// Only the drain phase is awaited: the other inputs of readiness
		// (a store probe, the origins) need not be read every tick.
		for {
			if phase, _ := currentDrainPhase(current.Load(), time.Now()); phase == phaseDrained {
				break
			}
			select {
			case <-r.Context().Done():
				return r.Context().Err()
			case <-tick.C:
			}
		}
	}
	return writeStatus(w)
}

func serveUndrain(w http.ResponseWriter, r *http.Request) error {
	if err := method(r, http.MethodPost); err != nil {
		return err
	}
	undrain()
	return writeStatus(w)
}

func writeStatus(w http.ResponseWriter) error {
	st := evaluate(current.Load(), time.Now())
	code := http.StatusOK
	if !st.Ready {
		code = http.StatusServiceUnavailable
	}
	return writeJSON(w, code, st)
}

func writeJSON(w http.ResponseWriter, code int, v any) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	return json.NewEncoder(w).Encode(v)
}

// Interface guards
var _ caddy.AdminRouter = (*AdminAPI)(nil)
