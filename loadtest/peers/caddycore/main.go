// Command caddy-core is Caddy with only what serving a site over HTTPS
// needs (the HTTP app, TLS with its default storage and session-ticket
// keys, the Caddyfile, response headers): the least a server built on
// Caddy carries, whose memory loadtest/peers/peer-bench.sh reports as the
// floor under lastmile's.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/headers"
	_ "github.com/caddyserver/caddy/v2/modules/caddytls"
	_ "github.com/caddyserver/caddy/v2/modules/caddytls/standardstek"
	_ "github.com/caddyserver/caddy/v2/modules/filestorage"
)

func main() {
	caddycmd.Main()
}
