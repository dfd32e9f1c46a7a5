// Command lastmile is Caddy with lastmile's modules compiled in: Caddy's
// own command line (run, validate, adapt, reload...) plus `lastmile demo`.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	// Caddy's standard modules (modules/standard's list) but the file
	// server, templates, FastCGI and the ACME server, which an edge in front
	// of origins does not run: they alone pulled in Markdown, syntax
	// highlighting and the ACME server's database code, and every page of
	// the executable that start-up touches stays resident (docs/BENCHMARKS.md,
	// "Peak RSS"). docs/CONFIGURATION.md, "Compiled-in modules", says how to
	// add one back.
	_ "github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	_ "github.com/caddyserver/caddy/v2/modules/caddyevents"
	_ "github.com/caddyserver/caddy/v2/modules/caddyevents/eventsconfig"
	_ "github.com/caddyserver/caddy/v2/modules/caddyfs"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/caddyauth"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/encode"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/encode/gzip"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/encode/zstd"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/headers"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/intercept"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/logging"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/map"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/proxyprotocol"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/push"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/requestbody"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy/forwardauth"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/rewrite"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/timeouts"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/tracing"
	_ "github.com/caddyserver/caddy/v2/modules/caddypki"
	_ "github.com/caddyserver/caddy/v2/modules/caddytls"
	_ "github.com/caddyserver/caddy/v2/modules/caddytls/distributedstek"
	_ "github.com/caddyserver/caddy/v2/modules/caddytls/standardstek"
	_ "github.com/caddyserver/caddy/v2/modules/filestorage"
	_ "github.com/caddyserver/caddy/v2/modules/logging"
	_ "github.com/caddyserver/caddy/v2/modules/metrics"

	// The Redis certificate storage a fleet shares (docs/FLEET.md).
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
