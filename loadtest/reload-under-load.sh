#!/usr/bin/env bash
# Config reloads under TCP load, as an operator would see them: `lastmile
# demo` serves wrk (HTTP/1.1 keep-alive) and h2load (HTTP/2) for DUR
# seconds while its config is reloaded RELOADS times through the admin
# API; prints each tool's requests and failures. A reload must be
# invisible to both: no wrk socket error or non-2xx, and every HTTP/2
# request the edge read (lastmile_http_requests_total) answered. h2load
# counts as failed the requests it queued before a GOAWAY reached it and
# then never sent, as RFC 9113 has it; browsers send those on a new
# connection.
#   loadtest/reload-under-load.sh                 # 15 s, 10 reloads
#   DUR=8 RELOADS=5 loadtest/reload-under-load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${DUR:-15} RELOADS=${RELOADS:-10}
bin=loadtest/bin
mkdir -p "$bin"
go build -o "$bin/lastmile" ./edge

. .ci/servers.sh
scratch
read -r PORT http admin origin < <(free_ports 4)
ADMIN=127.0.0.1:$admin

LASTMILE_HTTPS_PORT=$PORT LASTMILE_HTTP_PORT=$http LASTMILE_ADMIN=$ADMIN XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config" \
	"$bin/lastmile" demo --origin "127.0.0.1:$origin" >"$tmp/edge.log" 2>&1 &
edge_pid=$!
url=https://localhost:$PORT/static/app.css
wait_serving "$url" "$edge_pid" || { cat "$tmp/edge.log" >&2; exit 1; }
curl -sf "http://$ADMIN/config/" >"$tmp/config.json"
h2_read() {
	curl -sf "http://$ADMIN/metrics" | awk '/^lastmile_http_requests_total\{protocol="h2"\}/ {print $2}'
}
h2_before=$(h2_read)

wrk -t1 -c16 -d"${DUR}s" "$url" >"$tmp/wrk.txt" 2>&1 &
wrk_pid=$!
h2load -c8 -m10 -D "$DUR" "$url" >"$tmp/h2load.txt" 2>&1 &
h2_pid=$!
# Reloads spread over the middle of the run; must-revalidate makes Caddy
# reload an unchanged config.
for i in $(seq "$RELOADS"); do
	sleep "$(awk "BEGIN {print ($DUR - 2) / ($RELOADS + 1)}")"
	curl -sf -X POST -H 'Content-Type: application/json' -H 'Cache-Control: must-revalidate' \
		--data-binary @"$tmp/config.json" "http://$ADMIN/load" >/dev/null || echo "reload $i refused" >&2
done
wait "$wrk_pid" "$h2_pid"
h2_edge=$(awk "BEGIN {printf \"%d\", $(h2_read) - $h2_before}")

wrk_requests=$(awk '/requests in/ {print $1}' "$tmp/wrk.txt")
wrk_socket=$(awk '/Socket errors/ {gsub(",", ""); s = $4 + $6 + $8 + $10} END {print s + 0}' "$tmp/wrk.txt")
wrk_non2xx=$(awk '/Non-2xx/ {print $5} END {}' "$tmp/wrk.txt")
h2_line=$(grep '^requests:' "$tmp/h2load.txt")
echo "wrk (HTTP/1.1, 16 connections): $wrk_requests requests, ${wrk_socket} socket errors, ${wrk_non2xx:-0} non-2xx"
echo "h2load (HTTP/2, 8 connections x 10 streams): $h2_line"
echo "the edge read $h2_edge HTTP/2 requests; reloads: $RELOADS in ${DUR} s"
h2_succeeded=$(echo "$h2_line" | awk '{for (i = 1; i < NF; i++) if ($(i + 1) ~ /^succeeded/) print $i}')
if [ "$wrk_socket" != 0 ] || [ "${wrk_non2xx:-0}" != 0 ] || [ "${h2_succeeded:-0}" != "$h2_edge" ]; then
	echo "a reload was visible to clients" >&2
	exit 1
fi
