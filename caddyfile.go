// Package lastmile holds what the whole project shares: the default
// Caddyfile the README's run command uses, and the built RUM snippet.
package lastmile

import _ "embed"

// DefaultCaddyfile is the root Caddyfile, embedded so `lastmile demo` runs
// from the binary alone.
//
//go:embed Caddyfile
var DefaultCaddyfile []byte

// RUMSnippet is web-client's minified <script> build (make web-test
// rebuilds it and fails if the committed file differs from the source).
//
//go:embed web-client/dist/lastmile-rum.min.js
var RUMSnippet []byte
