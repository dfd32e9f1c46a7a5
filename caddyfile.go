// Package lastmile holds what the whole project shares: the default
// Caddyfile the README's run command uses.
package lastmile

import _ "embed"

// DefaultCaddyfile is the root Caddyfile, embedded so `lastmile demo` runs
// from the binary alone.
//
//go:embed Caddyfile
var DefaultCaddyfile []byte
