#!/usr/bin/env bash
# Cache hits of cacheable 2 KB responses from lastmile, nginx 1.26
# proxy_cache, Varnish, Caddy with cache-handler (Souin), Caddy's own
# `respond` in lastmile's binary and in caddy-core (loadtest/peers/caddycore:
# Caddy with only the modules a site over HTTPS needs, the floor under any
# server built on Caddy) and go-net-http (loadtest/peers/gohttp: Go's net/http alone
# answering the keys from a map with the fields of lastmile's hits, the
# ceiling for a Go edge; HTTP/1.1 and HTTP/2, no HTTP/3), the server on
# core 0 and a C load generator on core 1: wrk for HTTP/1.1 (plain,
# loopback), h2load for HTTP/2 (TLS, one connection, 32 streams),
# loadtest/cmd/httpload (a frame-level quic-go client) for HTTP/3 (32 streams
# on one connection). KEYS lists the workloads: 1 is one URL (/item), 1000
# (the issue's) is 1,000 URLs (/k/0../k/999) of 2 KB, all hits, which wrk
# rotates with a Lua script, h2load reads from a URI file (-i) and httpload
# cycles with -keys. Each server is warmed on every key, then measured in
# alternation, ROUNDS times. BASE=<commit> adds lastmile built at that
# commit ("lastmile-base") to the same run, for a before/after ratio;
# ONLY="lastmile lastmile-base" measures only the servers named.
# PROFILE=<dir> writes a CPU profile of lastmile, lastmile-base (from
# their admin endpoints' /debug/pprof) and go-net-http over each HTTP/1.1,
# HTTP/2 and HTTP/3 run of the first round, DUR minus 1 s long, as
# <dir>/<server>-<keys>-<h1|h2|h3|h3-table>.pprof. SERVER_GOGC=<n> runs the Go
# servers (not the Go client, httpload, which sets its own) with GOGC=<n>.
# QPACK_TABLE=<bytes> adds an HTTP/3 run whose client offers a QPACK
# dynamic table of that size, as browsers do (Chromium: 65536), with the
# response field sections' bytes per response.
# Prints a markdown table (req/s, p99 where the client reports it or, for
# h2load, from its per-request log, peak RSS of the server run from a copy
# of its executable, ratios to nginx and, when it ran, to go-net-http)
# and, with WRITE=1, writes it into docs/BENCHMARKS.md between the
# peer-bench markers. Needs root: installs
# wrk, h2load (nghttp2-client) and varnish with apt, and nginx 1.26 from
# Debian trixie (built with http_v3) unpacked under loadtest/bin, with an
# apt configuration of its own, leaving the system's sources alone. Caddy
# with cache-handler is built from loadtest/peers/cachehandler, a module of
# its own (pinned versions, not in lastmile's go.mod), into the run's
# temporary directory.
#   DUR=5s ROUNDS=1 BASE=1a1ebe8 loadtest/peers/peer-bench.sh
#   DUR=11s ROUNDS=1 KEYS=1000 BASE=1a1ebe8 ONLY="lastmile-base lastmile" PROFILE=/tmp/prof loadtest/peers/peer-bench.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
DUR=${DUR:-10s} C=${C:-32} ROUNDS=${ROUNDS:-2} WRITE=${WRITE:-0} BASE=${BASE:-} KEYS=${KEYS:-1 1000} ONLY=${ONLY:-} PROFILE=${PROFILE:-} SERVER_GOGC=${SERVER_GOGC:-} QPACK_TABLE=${QPACK_TABLE:-}
bin=$PWD/loadtest/bin
mkdir -p "$bin"
need=()
command -v wrk >/dev/null || need+=(wrk)
command -v h2load >/dev/null || need+=(nghttp2-client)
command -v varnishd >/dev/null || need+=(varnish)
if [ ${#need[@]} -gt 0 ]; then
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
nginx=$bin/nginx-1.26/usr/sbin/nginx
if [ ! -x "$nginx" ]; then
	apt=$bin/apt-trixie
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
	echo "deb http://deb.debian.org/debian trixie main" >"$apt/sources.list"
	opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache")
	apt-get "${opts[@]}" update -qq
	(cd "$apt" && apt-get "${opts[@]}" download nginx 2>/dev/null)
	dpkg-deb -x "$apt"/nginx_*.deb "$bin/nginx-1.26"
fi
go build -o "$bin/lastmile" ./edge
go build -o "$bin/httpload" ./loadtest/cmd/httpload
go build -o "$bin/peer-origin" ./loadtest/peers/origin
go build -o "$bin/go-net-http" ./loadtest/peers/gohttp
go build -o "$bin/caddy-core" ./loadtest/peers/caddycore

tmp=$(mktemp -d)
(cd loadtest/peers/cachehandler && go build -o "$tmp/caddy-cache-handler" .)
pids=()
stop_all() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap 'stop_all; rm -rf "$tmp"' EXIT INT TERM
start() { "$@" >>"$tmp/servers.log" 2>&1 & pids+=($!); }
if [ -n "$BASE" ]; then
	mkdir "$tmp/base" && git archive "$BASE" | tar -x -C "$tmp/base"
	(cd "$tmp/base" && go build -o "$bin/lastmile-base" ./edge)
fi
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
	-addext subjectAltName=DNS:localhost -keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>/dev/null

start taskset -c 0 "$bin/peer-origin" -addr 127.0.0.1:19080
body=$(curl -s --retry 20 --retry-connrefused --retry-delay 0 http://127.0.0.1:19080/item)
# name h1-port tls-port (h2 over TCP, h3 over UDP on the same number)
servers=("lastmile 18101 18201" "nginx 18102 18202" "varnish 18103 -" "cache-handler 18104 18204" "caddy-respond 18105 18205" "caddy-core 18108 18208" "go-net-http 18107 18207")
[ -n "$BASE" ] && servers=("lastmile-base 18106 18206" "${servers[@]}")
if [ -n "$ONLY" ]; then
	only=()
	for s in "${servers[@]}"; do [[ " $ONLY " == *" ${s%% *} "* ]] && only+=("$s"); done
	servers=("${only[@]}")
fi
[ -n "$PROFILE" ] && mkdir -p "$PROFILE"
# lastmile's global options are its default Caddyfile's: HTTP/3 from its
# quic app, client connections through client_tcp; Caddy's `respond` runs
# in the same binary without client_tcp; stock Caddy (cache-handler)
# serves HTTP/3 itself. The admin endpoint (PROFILE) is the h1 port + 200,
# go-net-http's /debug/pprof too.
lastmile_globals='servers {
		protocols h1 h2
		listener_wrappers {
			client_tcp
		}
	}
	quic'
edge_config() { # h1-port tls-port handler global-options
	cat <<CADDY
{
	admin localhost:$(($1 + 200))
	auto_https off
	$4
}
http://localhost:$1 {
	$3
}
https://localhost:$2 {
	tls $tmp/cert.pem $tmp/key.pem
	$3
}
CADDY
}
edge_config 18101 18201 "edge_cache
	reverse_proxy 127.0.0.1:19080" "$lastmile_globals" >"$tmp/lastmile.Caddyfile"
edge_config 18106 18206 "edge_cache
	reverse_proxy 127.0.0.1:19080" "$lastmile_globals" >"$tmp/lastmile-base.Caddyfile"
edge_config 18105 18205 "header Content-Type application/json
	header Cache-Control \"public, max-age=86400\"
	respond \`$body\`" "servers {
		protocols h1 h2
	}
	quic" >"$tmp/caddy-respond.Caddyfile"
edge_config 18108 18208 "header Content-Type application/json
	header Cache-Control \"public, max-age=86400\"
	respond \`$body\`" "servers {
		protocols h1 h2 h3
	}" >"$tmp/caddy-core.Caddyfile"
# Souin's defaults: its in-memory store, the response's own max-age.
edge_config 18104 18204 "cache
	reverse_proxy 127.0.0.1:19080" "cache
	servers {
		protocols h1 h2 h3
	}" >"$tmp/cache-handler.Caddyfile"
cat >"$tmp/nginx.conf" <<NGINX
user root;
worker_processes 1;
pid $tmp/nginx.pid;
error_log $tmp/nginx-error.log;
events { worker_connections 4096; }
http {
	access_log off;
	client_body_temp_path $tmp/nginx-body;
	proxy_temp_path $tmp/nginx-proxy;
	fastcgi_temp_path $tmp/nginx-fastcgi;
	uwsgi_temp_path $tmp/nginx-uwsgi;
	scgi_temp_path $tmp/nginx-scgi;
	# QUIC and HTTP/2 connections otherwise close after 1,000 requests.
	keepalive_requests 100000000;
	proxy_cache_path $tmp/nginx-cache keys_zone=edge:10m max_size=256m;
	upstream origin { server 127.0.0.1:19080; keepalive 32; }
	server {
		listen 127.0.0.1:18102;
		listen 127.0.0.1:18202 ssl;
		listen 127.0.0.1:18202 quic reuseport;
		http2 on;
		http3 on;
		ssl_certificate $tmp/cert.pem;
		ssl_certificate_key $tmp/key.pem;
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
# The Go servers run from copies, as installed (deploy/Containerfile's COPY,
# the unit's /usr/local/bin), not from the linker's output: the linker
# writes through a shared mapping, which leaves the file in the page cache
# as 2 MiB folios, and the kernel maps a whole folio into a process at its
# first touch. From the linker's file the edge's RSS at rest counts 74 MiB
# of its executable, from a copy 45 (docs/BENCHMARKS.md, "Peak RSS").
mkdir "$tmp/run"
cp "$bin/lastmile" "$tmp/caddy-cache-handler" "$bin/caddy-core" "$bin/go-net-http" "$tmp/run/"
[ -n "$BASE" ] && cp "$bin/lastmile-base" "$tmp/run/"
declare -A cmd=([lastmile]="$tmp/run/lastmile" [lastmile-base]="$tmp/run/lastmile-base" [caddy-respond]="$tmp/run/lastmile" [caddy-core]="$tmp/run/caddy-core" [cache-handler]="$tmp/run/caddy-cache-handler")
server_env=()
[ -n "$SERVER_GOGC" ] && server_env=("GOGC=$SERVER_GOGC")
for s in "${servers[@]}"; do
	name=${s%% *}
	case $name in
	nginx) start taskset -c 0 "$nginx" -c "$tmp/nginx.conf" -p "$tmp" -g 'daemon off;' ;;
	go-net-http) start env "${server_env[@]}" taskset -c 0 "$tmp/run/go-net-http" -http 127.0.0.1:18107 -https 127.0.0.1:18207 -cert "$tmp/cert.pem" -key "$tmp/key.pem" \
		-origin http://127.0.0.1:19080 -keys 1000 -pprof localhost:18307 ;;
	varnish) start taskset -c 0 varnishd -F -n "$tmp/varnish" -a 127.0.0.1:18103 -b 127.0.0.1:19080 -s malloc,256m -p thread_pools=1 ;;
	*) XDG_DATA_HOME="$tmp/$name" XDG_CONFIG_HOME="$tmp/$name" start env "${server_env[@]}" taskset -c 0 "${cmd[$name]}" run --config "$tmp/$name.Caddyfile" ;;
	esac
done
# The 1,000-key workload's paths: a URI list for h2load, a config of
# URLs for curl's warm-up, a Lua script rotating them for wrk.
seq 0 999 | sed 's|^|/k/|' >"$tmp/paths"
cat >"$tmp/rotate.lua" <<'LUA'
local n, i = 1000, 0
request = function()
	i = (i + 1) % n
	return wrk.format(nil, "/k/" .. i)
end
LUA
warm() { # base-url keys: fetch every key once, so the runs are all hits
	if [ "$2" = 1 ]; then
		curl -skf "$1/item" -o /dev/null
	else
		sed "s|^|url = $1|; s|\$|\noutput = /dev/null|" "$tmp/paths" | curl -skf --no-progress-meter --parallel -K -
	fi
}

pid_of() { # the server process listening on port $1
	ss -Htlnp "sport = :$1" | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | tail -1
}
memory() { # name keys phase h1-port: the server's resident and anonymous KiB now
	echo -e "$1\t$2\tmem-$3\t$(awk '/^VmRSS/ {r = $2} /^RssAnon/ {a = $2} END {print r "\t" a}' "/proc/$(pid_of "$4")/status")" >>"$results"
}
results="$tmp/results.tsv"
for s in "${servers[@]}"; do
	read -r name p1 p2 <<<"$s"
	for _ in $(seq 100); do curl -sf "http://localhost:$p1/item" -o /dev/null && break; sleep 0.1; done
	curl -sf "http://localhost:$p1/item" -o /dev/null || { echo "$name did not start:" >&2; cat "$tmp"/servers.log "$tmp"/nginx-error.log >&2 2>/dev/null; exit 1; }
	memory "$name" - rest "$p1"
	for k in $KEYS; do
		warm "http://localhost:$p1" "$k"
		[ "$p2" != - ] && warm "https://localhost:$p2" "$k"
		memory "$name" "$k" warm "$p1"
	done
done
profile() { # server keys proto: a CPU profile over this run, in the background
	case $1 in lastmile | lastmile-base | go-net-http) ;; *) return 0 ;; esac
	[ -n "$PROFILE" ] && [ "$round" = 1 ] || return 0
	curl -s "http://localhost:$((p1 + 200))/debug/pprof/profile?seconds=$((${DUR%s} - 1))" -o "$PROFILE/$1-$2-$3.pprof" &
	profiling=$!
}
profiled() { # waits for the profile that profile started, if any (not for the servers)
	[ -n "$profiling" ] && wait "$profiling"
	profiling=
}
profiling=
# h3_run profile-name kind second-field [httpload options]: one HTTP/3 run
# of server $name on $p2, its req/s and the named field of httpload's
# report recorded as kind.
h3_run() {
	profile "$name" "$k" "$1"
	out=$(taskset -c 1 "$bin/httpload" -proto h3 "${@:4}" "${h3args[@]/#\//https://localhost:$p2/}" -d "$DUR" -c "$C")
	profiled
	echo -e "$name\t$k\t$2\t$(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(r["req_per_sec"], r[sys.argv[2]], sep="\t")' "$out" "$3")" >>"$results"
}
for round in $(seq "$ROUNDS"); do
	for k in $KEYS; do
		if [ "$k" = 1 ]; then
			wrkargs=() h3args=(-url /item)
		else
			wrkargs=(-s "$tmp/rotate.lua") h3args=(-url /k/ -keys "$k")
		fi
		for s in "${servers[@]}"; do
			read -r name p1 p2 <<<"$s"
			before=$(curl -s http://127.0.0.1:19080/count)
			profile "$name" "$k" h1
			out=$(taskset -c 1 wrk -t1 -c"$C" -d"$DUR" --latency "${wrkargs[@]}" "http://localhost:$p1/item")
			profiled
			rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
			p99=$(awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v/=1000} else if (v ~ /ms$/) sub(/ms/,"",v); else if (v ~ /s$/) {sub(/s/,"",v); v*=1000}; print v}' <<<"$out")
			echo -e "$name\t$k\th1\t$rps\t$p99" >>"$results"
			memory "$name" "$k" h1 "$p1"
			if [ "$p2" != - ]; then
				profile "$name" "$k" h2
				# h2load takes the scheme, host and port from its first URI
				# and the paths from the list.
				if [ "$k" = 1 ]; then
					uris=("https://localhost:$p2/item")
				else
					sed -i "1s|^.*\$|https://localhost:$p2/k/0|" "$tmp/paths"
					uris=(-i "$tmp/paths")
				fi
				rm -f "$tmp/h2.log"
				out=$(taskset -c 1 h2load -c1 -m"$C" -D "${DUR%s}" --warm-up-time=1 --log-file="$tmp/h2.log" "${uris[@]}" 2>&1)
				profiled
				rps=$(sed -n 's/.*finished in .*, \([0-9.]*\) req\/s.*/\1/p' <<<"$out")
				# p99 of the per-request times h2load logs (microseconds to the end of the response)
				p99=$(cut -f3 "$tmp/h2.log" | sort -n | awk '{t[NR] = $1} END {if (NR) printf "%.2f", t[int(NR * 0.99 + 0.5)] / 1000}')
				echo -e "$name\t$k\th2\t$rps\t$p99" >>"$results"
				memory "$name" "$k" h2 "$p1"
			fi
			if [ "$p2" != - ] && [ "$name" != go-net-http ]; then
				h3_run h3 h3 p99_ms
				memory "$name" "$k" h3 "$p1"
				if [ -n "$QPACK_TABLE" ]; then
					h3_run h3-table h3t head_bytes_per_response -qpack-table "$QPACK_TABLE"
				fi
			fi
			pid=$(pid_of "$p1")
			echo -e "$name\t$k\trss\t$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")\t" >>"$results"
			after=$(curl -s http://127.0.0.1:19080/count)
			echo -e "$name\t$k\torigin\t$((after - before))\t" >>"$results"
		done
	done
done
versions="lastmile $(git describe --always --dirty)${BASE:+ and $BASE}, $("$nginx" -v 2>&1 | sed 's/^nginx version: //'), $(varnishd -V 2>&1 | head -1 | sed 's/^varnishd (\([^ ]*\) .*/\1/'), Caddy with cache-handler $(cd loadtest/peers/cachehandler && go list -m -f '{{.Version}}' github.com/caddyserver/cache-handler), Go $(go env GOVERSION) net/http (go-net-http), wrk $(wrk -v 2>&1 | head -1 | awk '{print $2}'), h2load $(h2load --version | awk '{print $2}')"
command="DUR=$DUR C=$C ROUNDS=$ROUNDS KEYS=\"$KEYS\"${BASE:+ BASE=$BASE}${SERVER_GOGC:+ SERVER_GOGC=$SERVER_GOGC}${QPACK_TABLE:+ QPACK_TABLE=$QPACK_TABLE}${ONLY:+ ONLY=\"$ONLY\"} loadtest/peers/peer-bench.sh"
python3 - "$results" "$WRITE" "$command" "$versions" <<'PY'
import collections, datetime, re, statistics, sys
results, write, command, versions = sys.argv[1:5]
v = collections.defaultdict(list)
keys = []
for line in open(results):
    name, k, kind, a, b = (line.rstrip("\n").split("\t") + ["", ""])[:5]
    keys += [k] if k not in keys and k != "-" else []
    if a:
        v[name, k, kind].append((float(a), float(b) if b else None))
def mean(name, k, kind, i=0):
    xs = [x[i] for x in v.get((name, k, kind), []) if x[i] is not None]
    return statistics.mean(xs) if xs else None
gohttp = any(name == "go-net-http" for name, _, _ in v)
qtable = any(kind == "h3t" for _, _, kind in v)
table = ["| server | keys | h1 req/s | h1 p99 ms | h2 req/s | h2 p99 ms | h3 req/s | h3 p99 ms | peak RSS MiB | h1 vs nginx | h2 vs nginx | h3 vs nginx h3 | h3 vs own h2 |"
         + (" h1 vs go-net-http | h2 vs go-net-http |" if gohttp else "")
         + (" h3 with a QPACK table req/s | its field section bytes | h3 table vs h3 |" if qtable else "") + " origin requests |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if gohttp else "") + ("---|---|---|" if qtable else "")]
f = lambda x, fmt: "-" if x is None else format(x, fmt)
r = lambda a, b: "-" if a is None or not b else f"{a/b:.2f}"
order = ("lastmile-base", "lastmile", "go-net-http", "nginx", "varnish", "cache-handler", "caddy-respond", "caddy-core")
for k in keys:
    for n in order:
        if (n, k, "h1") not in v:
            continue
        h1, h1p, h2, h2p, h3, h3p = mean(n, k, "h1"), mean(n, k, "h1", 1), mean(n, k, "h2"), mean(n, k, "h2", 1), mean(n, k, "h3"), mean(n, k, "h3", 1)
        rss = max((x[0] for x in v.get((n, k, "rss"), [])), default=None)
        org = sum(x[0] for x in v.get((n, k, "origin"), []))
        table.append(f"| {n} | {int(k):,} | {f(h1, ',.0f')} | {f(h1p, '.2f')} | {f(h2, ',.0f')} | {f(h2p, '.2f')} | {f(h3, ',.0f')} | {f(h3p, '.2f')} | {f(rss and rss/1024, '.0f')} | "
                     f"{r(h1, mean('nginx', k, 'h1'))} | {r(h2, mean('nginx', k, 'h2'))} | {r(h3, mean('nginx', k, 'h3'))} | {r(h3, h2)} | "
                     + (f"{r(h1, mean('go-net-http', k, 'h1'))} | {r(h2, mean('go-net-http', k, 'h2'))} | " if gohttp else "")
                     + (f"{f(mean(n, k, 'h3t'), ',.0f')} | {f(mean(n, k, 'h3t', 1), '.0f')} | {r(mean(n, k, 'h3t'), h3)} | " if qtable else "") + f"{org:.0f} |")
# Memory by phase: resident (anonymous) MiB at rest, after the warm-up,
# and after each protocol's run (the highest over the rounds).
memory = ["", "Resident memory in MiB, anonymous in brackets (the rest is the executable's pages), at rest after start-up, after the warm-up, and after each protocol's run (the highest over the rounds):", "",
          "| server | keys | at rest | warmed | after h1 | after h2 | after h3 |", "|---|---|---|---|---|---|---|"]
def mem(n, k, phase):
    xs = v.get((n, k, "mem-" + phase), [])
    return "-" if not xs else "%.0f (%.0f)" % (max(x[0] for x in xs) / 1024, max(x[1] for x in xs) / 1024)
for k in keys:
    for n in order:
        if (n, k, "h1") in v:
            memory.append(f"| {n} | {int(k):,} | {mem(n, '-', 'rest')} | {mem(n, k, 'warm')} | {mem(n, k, 'h1')} | {mem(n, k, 'h2')} | {mem(n, k, 'h3')} |")
table += memory
print("\n".join(table))
if write == "1":
    block = "\n".join(["<!-- peer-bench:begin (written by loadtest/peers/peer-bench.sh) -->",
        f"Measured {datetime.date.today().isoformat()} with `{command}` ({versions}):", "", *table, "<!-- peer-bench:end -->"])
    doc = open("docs/BENCHMARKS.md").read()
    new, n = re.subn(r"<!-- peer-bench:begin.*?<!-- peer-bench:end -->", lambda _: block, doc, flags=re.S)
    if n != 1:
        sys.exit("docs/BENCHMARKS.md has no peer-bench markers")
    open("docs/BENCHMARKS.md", "w").write(new)
PY
