// Command lastmile is Caddy with lastmile's modules compiled in: Caddy's
// own command line (run, validate, adapt, reload...) plus `lastmile demo`.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	// Caddy's standard modules, the Redis certificate storage a fleet
	// shares (docs/FLEET.md), and lastmile's modules.
	_ "github.com/caddyserver/caddy/v2/modules/standard"
	_ "github.com/pberkel/caddy-storage-redis"

	_ "github.com/lastmile-edge/lastmile/modules/anycast"
	_ "github.com/lastmile-edge/lastmile/modules/cdnloop"
	_ "github.com/lastmile-edge/lastmile/modules/clienttcp"
	_ "github.com/lastmile-edge/lastmile/modules/fleet"
	_ "github.com/lastmile-edge/lastmile/modules/httpcache"
	_ "github.com/lastmile-edge/lastmile/modules/originlink"
	_ "github.com/lastmile-edge/lastmile/modules/quicedge"
	_ "github.com/lastmile-edge/lastmile/modules/rum"
	_ "github.com/lastmile-edge/lastmile/modules/wtfanout"
	_ "github.com/lastmile-edge/lastmile/modules/wtproxy"
	_ "github.com/lastmile-edge/lastmile/modules/wtsession"
)

func main() {
	caddycmd.Main()
}
