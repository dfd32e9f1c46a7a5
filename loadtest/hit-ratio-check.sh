#!/usr/bin/env bash
# make test's regression check of the cache hit path: one lastmile process
# on core 0 serves the same 2 KB body as an `edge_cache` hit (the fast hit
# path) and as Caddy's `respond`, on servers of their own, and C load generators
# on core 1 measure both in the same run, alternating: wrk over HTTP/1.1,
# h2load over HTTP/2 (TLS, one connection, 32 streams), httpload (a frame-level
# quic-go client) over HTTP/3 (one connection, 32 streams), without and
# with a QPACK table offered (h3t: as browsers do, which takes hits down
# another path, their fields given to quic-go as a list). It fails when a
# hit/respond ratio is under its floor. Ratios, not rates: the rates move
# with whatever else runs on a shared machine, the ratio of two runs of the
# same process side by side much less.
#
# Two checks: the log must say both cached sites got the fast hit path
# (a config-level regression fails there, whatever the speed), and the
# median ratio of three rounds must reach its floor. The floors are
# generous, for a shared machine: HTTP/1.1 1.8x, against medians of 2.97x
# to 3.16x in the first three runs with client_tcp answering hits below
# net/http (single rounds down to 1.79x; docs/BENCHMARKS.md, "HTTP/1.1
# hits below net/http"), 1.25x to 1.80x in 20 runs before it (hits inside
# net/http, on the fast hit path: most regressions of the answers fail
# here) and about 1.04x without the fast hit path (1a1ebe8); HTTP/2 1.0x (a hit no slower than `respond`), against 1.14x
# to 1.97x (the 1.14x from a first form that took the ratio of medians;
# 1.25x since), and about 0.91x without the fast path (docs/BENCHMARKS.md,
# "Regression check of the hit path"); HTTP/3 1.2x with and without a
# table, against 1.66x-1.78x (h3) and 1.57x-1.64x (h3t) in the first runs
# with the frame-level client (docs/BENCHMARKS.md, "HTTP/3 hits: a client
# cheaper than the server"; with quic-go's own client, which cost more
# than the server, 0.97x to 1.26x and a floor of 0.8x): it catches a hit
# path that fails or falls well behind, not small losses. A third check
# holds issue 16's goal that HTTP/3 hits are at least the edge's own
# HTTP/2 hits: the median of the rounds' HTTP/3 (and, table offered,
# h3t) hit rate over the same round's HTTP/2 hit rate must reach 0.85x,
# against 0.98x in this check's last run before the HTTP/3 request path
# lost its per-request context and stream watch registrations and
# 1.00x-1.18x in four runs since (docs/BENCHMARKS.md, "HTTP/3 hits: a
# request's context without a lock of its own"); it catches an HTTP/3
# path fallen well behind HTTP/2's, not the peer bench's last percent.
# About 75 s, most of it measuring.
#   loadtest/hit-ratio-check.sh              # DUR=2s ROUNDS=3
#   MIN_H1=0 MIN_H2=0 MIN_H3=0 MIN_H3T=0 MIN_H3_VS_H2=0 loadtest/hit-ratio-check.sh   # only print the ratios
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${DUR:-2s} ROUNDS=${ROUNDS:-3} C=${C:-32} MIN_H1=${MIN_H1:-1.8} MIN_H2=${MIN_H2:-1.0} MIN_H3=${MIN_H3:-1.2} MIN_H3T=${MIN_H3T:-1.2} MIN_H3_VS_H2=${MIN_H3_VS_H2:-0.85}
for tool in wrk h2load taskset; do
	command -v "$tool" >/dev/null || { echo "hit-ratio-check: $tool is missing (make deps installs it)" >&2; exit 1; }
done
. .ci/servers.sh
scratch
go build -o "$tmp/lastmile" ./edge
go build -o "$tmp/httpload" ./loadtest/cmd/httpload
# The hit and the respond get servers of their own (the fast hit path
# needs edge_cache first on its site), in the same process.
read -r h1 h2 h1s h2s origin < <(free_ports 5)
body="{\"items\":\"$(head -c 2036 /dev/zero | tr '\0' x)\"}"
respond="header Content-Type application/json
	header Cache-Control \"public, max-age=86400\"
	respond \`$body\`"
cat >"$tmp/Caddyfile" <<CADDY
{
	admin off
	skip_install_trust
	auto_https disable_redirects
	# As the shipped Caddyfile: client_tcp under every server, so the
	# hit's HTTP/2 goes through the listener wrapper's TLS hand-over; the
	# quic app serves the HTTPS sites' HTTP/3 on the same port numbers.
	servers {
		protocols h1 h2
		listener_wrappers {
			client_tcp
		}
	}
	quic
}
http://localhost:$h1 {
	edge_cache
	reverse_proxy 127.0.0.1:$origin
}
https://localhost:$h2 {
	tls internal
	edge_cache
	reverse_proxy 127.0.0.1:$origin
}
http://localhost:$h1s {
	$respond
}
https://localhost:$h2s {
	tls internal
	$respond
}
http://:$origin {
	$respond
}
CADDY
XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config" taskset -c 0 "$tmp/lastmile" run --config "$tmp/Caddyfile" >"$tmp/edge.log" 2>&1 &
edge_pid=$!
for url in "http://localhost:$h1s/" "https://localhost:$h2s/"; do
	wait_serving "$url" "$edge_pid" || { cat "$tmp/edge.log" >&2; exit 1; }
done
for base in "http://localhost:$h1" "https://localhost:$h2"; do
	curl -skf "$base/item" -o /dev/null
	curl -sk -D "$tmp/hit.h" "$base/item" -o "$tmp/hit.body"
	if ! grep -qi '^cache-status: lastmile; hit' "$tmp/hit.h" || [ "$(cat "$tmp/hit.body")" != "$body" ]; then
		echo "hit-ratio-check: $base/item is not a hit of the respond body" >&2
		cat "$tmp/hit.h" "$tmp/edge.log" >&2
		exit 1
	fi
done
if [ "$(grep -c '"fast hit path for site"' "$tmp/edge.log")" != 2 ]; then
	echo "hit-ratio-check: the cached sites did not get the fast hit path" >&2
	cat "$tmp/edge.log" >&2
	exit 1
fi
results="$tmp/results"
h1_rate() { # port
	taskset -c 1 wrk -t1 -c"$C" -d"$DUR" "http://localhost:$1/item" | awk '/^Requests\/sec/ {print $2}'
}
h2_rate() { # port
	taskset -c 1 h2load -c1 -m"$C" -D "${DUR%s}" --warm-up-time=1 "https://localhost:$1/item" 2>&1 |
		sed -n 's/.*finished in .*, \([0-9.]*\) req\/s.*/\1/p'
}
h3_rate() { # port [httpload options]
	taskset -c 1 "$tmp/httpload" -proto h3 -url "https://localhost:$1/item" -d "$DUR" -c "$C" "${@:2}" |
		python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["req_per_sec"] if not r["errors"] else 0)'
}
h3t_rate() { # port: over HTTP/3 with a QPACK table offered, as browsers do
	h3_rate "$1" -qpack-table 65536
}
# Each round measures the two servers back to back, per protocol, in
# turn first; the check takes the median of the rounds' ratios, so a
# burst of other work that slows one run moves one ratio, not the result.
for round in $(seq "$ROUNDS"); do
	order="static cached"
	[ $((round % 2)) = 0 ] && order="cached static"
	for proto in h1 h2 h3 h3t; do
		for what in $order; do
			case $proto-$what in
			h1-static) port=$h1s ;; h1-cached) port=$h1 ;; h[23]*-static) port=$h2s ;; h[23]*-cached) port=$h2 ;;
			esac
			echo "$round $proto $what $("${proto}_rate" "$port")" >>"$results"
		done
	done
done
# Per protocol: the rounds' ratios, their median against the floor.
awk -v min_h1="$MIN_H1" -v min_h2="$MIN_H2" -v min_h3="$MIN_H3" -v min_h3t="$MIN_H3T" -v min_h3_vs_h2="$MIN_H3_VS_H2" '
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
{ rate[$1, $2, $3] = $4; if (!($1 in seen)) { seen[$1]; rounds[++n] = $1 } }
END {
	floor["h1"] = min_h1; floor["h2"] = min_h2; floor["h3"] = min_h3; floor["h3t"] = min_h3t
	nprotos = split("h1 h2 h3 h3t", protos, " ")
	for (p = 1; p <= nprotos; p++) {
		proto = protos[p]; list = ""
		for (i = 1; i <= n; i++) {
			r = rounds[i]
			ratio[i] = rate[r, proto, "static"] > 0 ? rate[r, proto, "cached"] / rate[r, proto, "static"] : 0
			c[i] = rate[r, proto, "cached"]; s[i] = rate[r, proto, "static"]
			list = list (i > 1 ? ", " : "") sprintf("%.2f", ratio[i])
		}
		m = median(ratio, n); ok = m >= floor[proto]
		if (!ok) failed = 1
		printf "hit-ratio-check: %s hit %d req/s, respond %d req/s: %.2fx (rounds %s; floor %.2fx) %s\n",
			proto, median(c, n), median(s, n), m, list, floor[proto], ok ? "ok" : "FAILED"
	}
	# HTTP/3 hits against the HTTP/2 hits of the same round.
	for (p = 3; p <= nprotos; p++) {
		proto = protos[p]; list = ""
		for (i = 1; i <= n; i++) {
			r = rounds[i]
			ratio[i] = rate[r, "h2", "cached"] > 0 ? rate[r, proto, "cached"] / rate[r, "h2", "cached"] : 0
			list = list (i > 1 ? ", " : "") sprintf("%.2f", ratio[i])
		}
		m = median(ratio, n); ok = m >= min_h3_vs_h2
		if (!ok) failed = 1
		printf "hit-ratio-check: %s hit vs h2 hit: %.2fx (rounds %s; floor %.2fx) %s\n", proto, m, list, min_h3_vs_h2, ok ? "ok" : "FAILED"
	}
	exit failed
}' "$results"
