#!/usr/bin/env bash
# The edge's hits under GC settings given as environment assignments, one
# run each: 1,000 keys of 2 KB (loadtest/peers/origin), all hits, the edge
# on core 0, wrk (HTTP/1.1, 32 connections) then h2load (HTTP/2, one TLS
# connection x 32 streams, the same keys) on core 1, DUR seconds each; it
# prints req/s and the edge's peak RSS (VmHWM) per setting.
#   DUR=8 loadtest/gc-settings-bench.sh GOGC=100 GOGC=50 "GOGC=100 GOMEMLIMIT=48MiB"
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${DUR:-8}
bin=$PWD/loadtest/bin
mkdir -p "$bin"
go build -o "$bin/lastmile" ./edge
go build -o "$bin/peer-origin" ./loadtest/peers/origin
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT INT TERM
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
	-addext subjectAltName=DNS:localhost -keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>/dev/null
taskset -c 0 "$bin/peer-origin" -addr 127.0.0.1:19180 & pids+=($!)
cat >"$tmp/edge.Caddyfile" <<CADDY
{
	admin off
	auto_https off
	servers {
		protocols h1 h2
	}
	quic
}
http://localhost:18111 {
	edge_cache
	reverse_proxy 127.0.0.1:19180
}
https://localhost:18211 {
	tls $tmp/cert.pem $tmp/key.pem
	edge_cache
	reverse_proxy 127.0.0.1:19180
}
CADDY
cat >"$tmp/keys.lua" <<'LUA'
local i = 0
request = function()
  i = (i % 1000) + 1
  return wrk.format("GET", "/k/" .. i)
end
LUA
for i in $(seq 1000); do echo "https://localhost:18211/k/$i"; done >"$tmp/uris.txt"
for spec in "$@"; do
	env $spec XDG_DATA_HOME="$tmp/xdg" XDG_CONFIG_HOME="$tmp/xdg" taskset -c 0 "$bin/lastmile" run --config "$tmp/edge.Caddyfile" >"$tmp/edge.log" 2>&1 &
	edge=$!
	for _ in $(seq 100); do curl -sf http://localhost:18111/k/1 -o /dev/null && break; sleep 0.1; done
	curl -s $(for i in $(seq 1000); do echo "-o /dev/null http://localhost:18111/k/$i"; done)
	h1=$(taskset -c 1 wrk -t1 -c32 -d"${DUR}s" -s "$tmp/keys.lua" http://localhost:18111 | awk '/^Requests\/sec/ {print $2}')
	h2=$(taskset -c 1 h2load -c1 -m32 -D "$DUR" --warm-up-time=1 -i "$tmp/uris.txt" 2>&1 | sed -n 's/.*finished in .*, \([0-9.]*\) req\/s.*/\1/p')
	echo "$spec: h1 $h1 req/s, h2 $h2 req/s, peak RSS $(awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$edge/status") MiB"
	kill "$edge"
	wait "$edge" 2>/dev/null || true
done
