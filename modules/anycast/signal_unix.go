//go:build unix

package anycast

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

// SIGUSR2 starts a drain (SIGUSR1 is Caddy's reload). It only drains,
// never toggles: signals may be sent twice or coalesced, and a second one
// must not put a node back that an operator took out. Undrain is on the
// admin API.
func init() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR2)
	go func() {
		for range ch {
			caddy.Log().Info("draining", zap.String("signal", "SIGUSR2"))
			drain()
		}
	}()
}
