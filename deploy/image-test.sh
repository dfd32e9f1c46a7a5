#!/usr/bin/env bash
# Builds the container image (make image) and serves pages from it. This
# machine has no container engine that can start a container (podman
# builds, but crun cannot set rlimits or cgroups here), so the image's
# filesystem, exported by podman, runs in a chroot as the image's user,
# with the image's environment and entrypoint, in front of the demo origin.
# Checks: the files and their owner, a page over HTTP/2 with Alt-Svc for
# its port, pages over HTTP/3, and that the edge from the image is the one
# that answered. Needs root (chroot).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "image-test: needs root (chroot)" >&2; exit 1; }
make image
podman="podman --storage-driver vfs"
image=lastmile:dev
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() { echo "image-test: $*" >&2; cat "$tmp"/*.log >&2 2>/dev/null || true; exit 1; }

mkdir "$tmp/rootfs"
cid=$($podman create "$image")
$podman export "$cid" | tar -x -C "$tmp/rootfs"
$podman rm "$cid" >/dev/null
user=$($podman image inspect -f '{{.Config.User}}' "$image")
mapfile -t env < <($podman image inspect -f '{{range .Config.Env}}{{println .}}{{end}}' "$image" | grep .)
read -ra entrypoint <<<"$($podman image inspect -f '{{join .Config.Entrypoint " "}}' "$image")"
[ -x "$tmp/rootfs${entrypoint[0]}" ] || fail "no ${entrypoint[0]} in the image"
[ -s "$tmp/rootfs/etc/ssl/certs/ca-certificates.crt" ] || fail "no CA bundle in the image"
[ "$(stat -c %u:%g "$tmp/rootfs/var/lib/lastmile")" = "$user" ] || fail "/var/lib/lastmile is not owned by $user"
# What every container runtime provides: name resolution files.
cp /etc/hosts /etc/resolv.conf "$tmp/rootfs/etc/"

# Ports nothing else on this machine holds, so nothing else can answer
# for the image: the demo origin's (and its own edge's), the image's edge's.
. .ci/servers.sh
read -r origin origin_https origin_http origin_admin port http admin < <(free_ports 7)
# The demo origin, from the binary the image holds; its own edge stays out
# of the way on its own ports.
LASTMILE_HTTPS_PORT=$origin_https LASTMILE_HTTP_PORT=$origin_http LASTMILE_ADMIN=127.0.0.1:$origin_admin XDG_DATA_HOME="$tmp/demo" XDG_CONFIG_HOME="$tmp/demo" \
	build/image/lastmile demo --origin 127.0.0.1:$origin >"$tmp/origin.log" 2>&1 &
pids+=($!)
env -i "${env[@]}" LASTMILE_ORIGIN=127.0.0.1:$origin LASTMILE_HTTPS_PORT=$port LASTMILE_HTTP_PORT=$http LASTMILE_ADMIN=127.0.0.1:$admin \
	chroot --userspec="$user" "$tmp/rootfs" "${entrypoint[@]}" >"$tmp/edge.log" 2>&1 &
edge=$!
pids+=($edge)

url=https://localhost:$port/page/1
wait_serving "$url" "$edge" || fail "the edge from the image does not serve $url"
read -r code version < <(curl -sk --http2 -o /dev/null -w '%{http_code} %{http_version}\n' "$url")
[ "$code $version" = "200 2" ] || fail "HTTP/2: got $code over HTTP/$version"
headers=$(curl -sk -D - -o /dev/null "$url")
grep -qi "^alt-svc: h3=\":$port\"" <<<"$headers" || fail "no Alt-Svc for h3 on $port: $headers"
go build -o build/httpload ./loadtest/cmd/httpload
h3=$(build/httpload -proto h3 -url "$url" -c 1 -n 5 -d 5s -warmup 0) || fail "HTTP/3: $h3"
grep -q '"errors":0' <<<"$h3" || fail "HTTP/3: $h3"
# The admin endpoint of the image's edge counted those HTTP/3 requests.
# Read whole, then searched: piping curl into a quiet grep under pipefail
# fails curl (exit 23) whenever grep finds the line and exits early.
metrics=$(curl -sf "http://127.0.0.1:$admin/metrics") || fail "no metrics from the image's edge"
grep -Eq '^lastmile_http_requests_total\{protocol="h3"\} [1-9]' <<<"$metrics" || fail "the image's edge did not count the HTTP/3 requests: $(grep '^lastmile_http_requests_total' <<<"$metrics")"
kill -0 "$edge" 2>/dev/null || fail "the edge from the image exited"
echo "image-test: $image serves HTTP/2 and HTTP/3 as $user: $h3"
