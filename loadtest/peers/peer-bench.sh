#!/usr/bin/env bash
# The same origin and the same cacheable 2 KB response served from cache by
# lastmile, nginx proxy_cache, Varnish and Caddy with cache-handler, over
# HTTP/1.1 on loopback (Varnish has no TLS): each warmed, then measured in
# alternation, the server on core 0 and the load generator on core 1.
# Prints a markdown table (requests/s, p99, errors, origin requests during
# the measured runs, ratios to nginx) and writes it, with the date, the
# command and the servers' versions, into docs/BENCHMARKS.md between the
# peer-bench markers (WRITE=0: print only). Needs root (apt-get install of
# nginx and varnish).
#   loadtest/peers/peer-bench.sh      DUR=5s ROUNDS=1 for a quick run
set -euo pipefail
cd "$(dirname "$0")/../.."
DUR=${DUR:-10s} C=${C:-32} ROUNDS=${ROUNDS:-2} WRITE=${WRITE:-1}
bin=loadtest/bin
mkdir -p "$bin"
for pkg in nginx varnish; do
	command -v "${pkg/varnish/varnishd}" >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx varnish >/dev/null; break; }
done
go build -o "$bin/lastmile" ./edge
go build -o "$bin/httpload" ./loadtest/cmd/httpload
go build -o "$bin/peer-origin" ./loadtest/peers/origin
(cd loadtest/peers/cachehandler && go build -o ../../bin/caddy-cache-handler .)

tmp=$(mktemp -d)
pids=()
stop_all() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap 'stop_all; rm -rf "$tmp"' EXIT INT TERM
start() { "$@" >>"$tmp/servers.log" 2>&1 & pids+=($!); }

start taskset -c 0 "$bin/peer-origin" -addr 127.0.0.1:19080

cat >"$tmp/lastmile.Caddyfile" <<CADDY
{
	admin off
	auto_https off
}
http://:18101 {
	edge_cache
	reverse_proxy 127.0.0.1:19080
}
CADDY
cat >"$tmp/cachehandler.Caddyfile" <<CADDY
{
	admin off
	auto_https off
	cache
}
http://:18104 {
	cache
	reverse_proxy 127.0.0.1:19080
}
CADDY
cat >"$tmp/nginx.conf" <<NGINX
# The cache directory is in this run's private temporary directory.
user root;
worker_processes 1;
pid $tmp/nginx.pid;
error_log $tmp/nginx-error.log;
events { worker_connections 4096; }
http {
	access_log off;
	proxy_cache_path $tmp/nginx-cache keys_zone=edge:10m max_size=256m;
	upstream origin { server 127.0.0.1:19080; keepalive 32; }
	server {
		listen 127.0.0.1:18102;
		location / {
			proxy_pass http://origin;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
			proxy_cache edge;
			proxy_cache_lock on;
			add_header X-Cache-Status \$upstream_cache_status;
		}
	}
}
NGINX
XDG_DATA_HOME="$tmp" XDG_CONFIG_HOME="$tmp" start taskset -c 0 "$bin/lastmile" run --config "$tmp/lastmile.Caddyfile"
XDG_DATA_HOME="$tmp" XDG_CONFIG_HOME="$tmp" start taskset -c 0 "$bin/caddy-cache-handler" run --config "$tmp/cachehandler.Caddyfile"
start taskset -c 0 nginx -c "$tmp/nginx.conf" -g 'daemon off;'
start taskset -c 0 varnishd -F -n "$tmp/varnish" -a 127.0.0.1:18103 -b 127.0.0.1:19080 -s malloc,256m -p thread_pools=1

servers=(lastmile:18101 nginx:18102 varnish:18103 cache-handler:18104)
for s in "${servers[@]}"; do
	for _ in $(seq 100); do curl -sf "http://127.0.0.1:${s#*:}/item" -o /dev/null && break; sleep 0.1; done
	curl -sf "http://127.0.0.1:${s#*:}/item" -o /dev/null || { echo "${s%%:*} did not start:" >&2; cat "$tmp"/servers.log "$tmp"/nginx-error.log >&2 2>/dev/null; exit 1; }
done
results="$tmp/results.tsv"
for round in $(seq "$ROUNDS"); do
	for s in "${servers[@]}"; do
		before=$(curl -s http://127.0.0.1:19080/count)
		out=$(taskset -c 1 "$bin/httpload" -proto h1 -url "http://127.0.0.1:${s#*:}/item" -d "$DUR" -c "$C")
		after=$(curl -s http://127.0.0.1:19080/count)
		echo -e "${s%%:*}\t$out\t$((after - before - 0))" >>"$results"
	done
done
versions="lastmile $(git describe --always --dirty), $(nginx -v 2>&1 | sed 's/^nginx version: //'), $(varnishd -V 2>&1 | head -1 | sed 's/^varnishd (\([^ ]*\) .*/\1/'), Caddy with cache-handler $(cd loadtest/peers/cachehandler && go list -m -f '{{.Version}}' github.com/caddyserver/cache-handler 2>/dev/null || echo '?')"
command="DUR=$DUR C=$C ROUNDS=$ROUNDS loadtest/peers/peer-bench.sh"
python3 - "$results" "$WRITE" "$command" "$versions" <<'PY'
import datetime, json, re, statistics, sys
results, write, command, versions = sys.argv[1:5]
rows = {}
for line in open(results):
    name, js, origin = line.rstrip("\n").split("\t")
    r = json.loads(js)
    rows.setdefault(name, []).append((r["req_per_sec"], r["p99_ms"], int(origin), r["errors"]))
base = statistics.mean(x[0] for x in rows["nginx"])
base_p99 = statistics.mean(x[1] for x in rows["nginx"])
table = ["| server | req/s | p99 ms | errors | origin requests during the runs | req/s vs nginx | p99 vs nginx |",
         "|---|---|---|---|---|---|---|"]
for name in ("lastmile", "nginx", "varnish", "cache-handler"):
    rps = statistics.mean(x[0] for x in rows[name]); p99 = statistics.mean(x[1] for x in rows[name])
    org = sum(x[2] for x in rows[name]); errs = sum(x[3] for x in rows[name])
    table.append(f"| {name} | {rps:,.0f} | {p99:.2f} | {errs} | {org} | {rps/base:.2f} | {p99/base_p99:.2f} |")
print("\n".join(table))
if write == "1":
    block = "\n".join([
        "<!-- peer-bench:begin (written by loadtest/peers/peer-bench.sh) -->",
        f"Measured {datetime.date.today().isoformat()} with `{command}` ({versions}):",
        "", *table, "<!-- peer-bench:end -->"])
    doc = open("docs/BENCHMARKS.md").read()
    new, n = re.subn(r"<!-- peer-bench:begin.*?<!-- peer-bench:end -->", lambda _: block, doc, flags=re.S)
    if n != 1:
        sys.exit("docs/BENCHMARKS.md has no peer-bench markers")
    open("docs/BENCHMARKS.md", "w").write(new)
    print("written to docs/BENCHMARKS.md", file=sys.stderr)
PY
