// Command caddy is stock Caddy with the cache-handler module (Souin), one
// of the caches loadtest/peers/peer-bench.sh compares lastmile with.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/cache-handler"
	_ "github.com/caddyserver/caddy/v2/modules/standard"
)

func main() {
	caddycmd.Main()
}
