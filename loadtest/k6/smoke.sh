#!/usr/bin/env bash
# Runs a k6 scenario against `lastmile demo` started here on free ports,
# and stops the edge afterwards, whatever happens.
#   loadtest/k6/smoke.sh [scenario.js]   (default: the CI smoke)
set -euo pipefail
cd "$(dirname "$0")/../.."
scenario=${1:-loadtest/k6/scenarios/smoke.js}
bin=loadtest/bin
mkdir -p "$bin"
go build -o "$bin/lastmile" ./edge
(cd loadtest/k6 && go build -o ../bin/k6 .)

. .ci/servers.sh
scratch
read -r https http admin origin < <(free_ports 4)
export LASTMILE_HTTPS_PORT=${LASTMILE_HTTPS_PORT:-$https} LASTMILE_HTTP_PORT=${LASTMILE_HTTP_PORT:-$http}
export LASTMILE_ADMIN=${LASTMILE_ADMIN:-127.0.0.1:$admin} XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config"
export LASTMILE_PURGE_TOKEN=${LASTMILE_PURGE_TOKEN:-k6-purge-$RANDOM$RANDOM}
# Every k6 VU comes from this one address.
export LASTMILE_WT_SESSIONS_PER_CLIENT=${LASTMILE_WT_SESSIONS_PER_CLIENT:-100000}
"$bin/lastmile" demo --origin "127.0.0.1:$origin" >"$tmp/edge.log" 2>&1 &
edge_pid=$!
wait_serving "https://localhost:$LASTMILE_HTTPS_PORT/" "$edge_pid" || { cat "$tmp/edge.log" >&2; exit 1; }
"$bin/k6" run --quiet -e BASE="https://localhost:$LASTMILE_HTTPS_PORT" -e ADMIN="http://$LASTMILE_ADMIN" \
	-e PURGE_TOKEN="$LASTMILE_PURGE_TOKEN" "$scenario" "${@:2}" || { status=$?; echo "k6 failed; the edge's log:" >&2; cat "$tmp/edge.log" >&2; exit "$status"; }
