package quicedge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// JSON configs get the Caddyfile's check of congestion_control.
func TestCongestionControlValidatedInJSON(t *testing.T) {
	bbrErr := ""
	if controllers[controllerBBR] == nil {
		bbrErr = "this build has no BBR"
	}
	for name, wantErr := range map[string]string{
		"vegas": `congestion_control "vegas": want one of [bbr cubic reno]`,
		"BBR":   `congestion_control "BBR"`,
		"bbr":   bbrErr,
		"cubic": "",
		"reno":  "",
	} {
		t.Run(name, func(t *testing.T) {
			a := &App{CongestionControl: name}
			err := a.checkCongestionControl()
			if (err == nil) != (wantErr == "") || (err != nil && !strings.Contains(err.Error(), wantErr)) {
				t.Fatalf("got %v, want %q", err, wantErr)
			}
			if wantErr == "" {
				return
			}
			cfg, _ := json.Marshal(map[string]any{"apps": map[string]any{"quic": map[string]any{"congestion_control": name}}})
			var c caddy.Config
			if err := json.Unmarshal(cfg, &c); err != nil {
				t.Fatal(err)
			}
			if err := caddy.Validate(&c); err == nil || !strings.Contains(err.Error(), wantErr) {
				t.Fatalf("caddy.Validate: got %v, want %q", err, wantErr)
			}
		})
	}
}

// Without lastmile's quic-go patch no connection asks for its controller:
// the app says so once, not per connection.
func TestMissingHookWarnedOnce(t *testing.T) {
	was := hookMissing.Swap(false)
	t.Cleanup(func() { hookMissing.Store(was) })
	core, logs := observer.New(zap.WarnLevel)
	a := &App{CongestionControl: controllerCubic, logger: zap.New(core)}
	for range 3 {
		a.warnIfHookMissing(a.newConnController(nil)) // never consulted
	}
	if n := logs.FilterMessageSnippet("congestion control unavailable").Len(); n != 1 {
		t.Fatalf("%d warnings, want 1", n)
	}
}
