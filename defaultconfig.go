// Package lastmile holds the repository's default Caddyfile, embedded so
// `lastmile demo` runs from the binary alone (go:embed cannot reach a
// parent directory, and the file belongs at the top, where operators look
// for it); the container image ships the same file.
package lastmile

import _ "embed"

// DefaultCaddyfile is the root Caddyfile.
//
//go:embed Caddyfile
var DefaultCaddyfile []byte
