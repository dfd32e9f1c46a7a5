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
. .ci/servers.sh
scratch
read -r h1port h2port originport < <(free_ports 3)
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
	-addext subjectAltName=DNS:localhost -keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>/dev/null
taskset -c 0 "$bin/peer-origin" -addr "127.0.0.1:$originport" &
origin_pid=$!
trap 'kill "$origin_pid" 2>/dev/null; scratch_cleanup' EXIT INT TERM
cat >"$tmp/edge.Caddyfile" <<CADDY
{
	admin off
	auto_https off
	servers {
		protocols h1 h2
	}
	quic
}
http://localhost:$h1port {
	edge_cache
	reverse_proxy 127.0.0.1:$originport
}
https://localhost:$h2port {
	tls $tmp/cert.pem $tmp/key.pem
	edge_cache
	reverse_proxy 127.0.0.1:$originport
}
CADDY
cat >"$tmp/keys.lua" <<'LUA'
local i = 0
request = function()
  i = (i % 1000) + 1
  return wrk.format("GET", "/k/" .. i)
end
LUA
for i in $(seq 1000); do echo "https://localhost:$h2port/k/$i"; done >"$tmp/uris.txt"
for spec in "$@"; do
	env $spec XDG_DATA_HOME="$tmp/xdg" XDG_CONFIG_HOME="$tmp/xdg" taskset -c 0 "$bin/lastmile" run --config "$tmp/edge.Caddyfile" >"$tmp/edge.log" 2>&1 &
	edge_pid=$!
	wait_serving "http://localhost:$h1port/k/1" "$edge_pid" || { cat "$tmp/edge.log" >&2; exit 1; }
	curl -s $(for i in $(seq 1000); do echo "-o /dev/null http://localhost:$h1port/k/$i"; done)
	h1=$(taskset -c 1 wrk -t1 -c32 -d"${DUR}s" -s "$tmp/keys.lua" "http://localhost:$h1port" | awk '/^Requests\/sec/ {print $2}')
	h2=$(taskset -c 1 h2load -c1 -m32 -D "$DUR" --warm-up-time=1 -i "$tmp/uris.txt" 2>&1 | sed -n 's/.*finished in .*, \([0-9.]*\) req\/s.*/\1/p')
	echo "$spec: h1 $h1 req/s, h2 $h2 req/s, peak RSS $(awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$edge_pid/status") MiB"
	kill "$edge_pid"
	wait "$edge_pid" 2>/dev/null || true
	edge_pid=
done
