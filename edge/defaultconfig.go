package main

import _ "embed"

// defaultCaddyfile is the default config, embedded so `lastmile demo` runs
// from the binary alone; the container image ships the same file.
//
//go:embed Caddyfile
var defaultCaddyfile []byte
