#!/usr/bin/env bash
# Cache hits against a static `respond` of the same 2 KB body, on the same
# edge, over HTTP/1.1, HTTP/2 and HTTP/3: the edge on core 0, the load
# generator on core 1, alternating static and cached runs. Prints a
# markdown table of requests/s, p99 and the cached/static ratio.
#   loadtest/cache-hit-bench.sh            # 10 s per run, 2 rounds
#   DUR=5s ROUNDS=1 loadtest/cache-hit-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${DUR:-10s} C=${C:-32} ROUNDS=${ROUNDS:-2} PORT=${PORT:-19443} ORIGIN_PORT=${ORIGIN_PORT:-19080}
bin=loadtest/bin
mkdir -p "$bin"
go build -o "$bin/lastmile" ./edge
go build -o "$bin/httpload" ./loadtest/cmd/httpload

. .ci/servers.sh
scratch

body=$(python3 -c 'import json; print(json.dumps({"items": [{"id": i, "name": "product %d" % i, "price": "%d.99" % i} for i in range(40)]})[:2048].ljust(2048))')
cat >"$tmp/Caddyfile" <<CADDY
{
	admin off
	skip_install_trust
	servers {
		protocols h1 h2
	}
	quic
}
https://localhost:$PORT {
	tls internal
	alt_svc
	handle /static {
		header Content-Type application/json
		respond \`$body\`
	}
	handle /cached {
		edge_cache
		reverse_proxy 127.0.0.1:$ORIGIN_PORT
	}
}
http://:$ORIGIN_PORT {
	header Content-Type application/json
	header Cache-Control "public, max-age=86400"
	respond \`$body\`
}
CADDY
XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config" taskset -c 0 "$bin/lastmile" run --config "$tmp/Caddyfile" >"$tmp/edge.log" 2>&1 &
edge_pid=$!
for _ in $(seq 100); do
	curl -skf "https://localhost:$PORT/cached" -o /dev/null && break
	sleep 0.1
done

static=$(curl -sk "https://localhost:$PORT/static" | sha256sum)
curl -sk "https://localhost:$PORT/cached" -o /dev/null
hit=$(curl -sk -D "$tmp/hit.h" "https://localhost:$PORT/cached" | sha256sum)
if [ "$static" != "$hit" ] || ! grep -qi '^cache-status: lastmile; hit' "$tmp/hit.h"; then
	echo "cache-hit-bench: /cached is not a hit of the same body as /static" >&2
	cat "$tmp/hit.h" >&2
	exit 1
fi
results="$tmp/results.jsonl"
for proto in h1 h2 h3; do
	for round in $(seq "$ROUNDS"); do
		for path in static cached; do
			taskset -c 1 "$bin/httpload" -proto "$proto" -url "https://localhost:$PORT/$path" -d "$DUR" -c "$C" >>"$results"
		done
	done
done
python3 - "$results" <<'PY'
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1])]
print("| protocol | static respond req/s | cache hit req/s | hit/static | static p99 ms | hit p99 ms |")
print("|---|---|---|---|---|---|")
for proto in ("h1", "h2", "h3"):
    s = [r for r in rows if r["proto"] == proto and r["url"].endswith("/static")]
    c = [r for r in rows if r["proto"] == proto and r["url"].endswith("/cached")]
    sr, cr = statistics.mean(r["req_per_sec"] for r in s), statistics.mean(r["req_per_sec"] for r in c)
    sp, cp = statistics.mean(r["p99_ms"] for r in s), statistics.mean(r["p99_ms"] for r in c)
    print(f"| {proto} | {sr:,.0f} | {cr:,.0f} | {cr/sr:.2f} | {sp:.2f} | {cp:.2f} |")
PY
