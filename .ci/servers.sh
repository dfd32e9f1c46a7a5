# Sourced by the scripts `make test` runs that start servers of their own
# (deploy/image-test.sh, loadtest/k6/smoke.sh, loadtest/hit-ratio-check.sh):
# ports nothing else holds, a bounded wait until a server answers, and a
# scratch directory cleaned up with the server. Linux (reads /proc/net).

# free_ports N prints, on one line, N distinct ports below the kernel's
# ephemeral range (32768 and up by default) that no TCP or UDP socket on
# this machine uses: a fixed port collides with whatever else runs here
# (another test run, a developer's edge), and an HTTPS port needs its UDP
# twin for QUIC.
free_ports() {
	local p ports=()
	while [ "${#ports[@]}" -lt "$1" ]; do
		p=$((10000 + RANDOM % 20000))
		case " ${ports[*]} " in *" $p "*) continue ;; esac
		# Files, not a pipe, for grep -q to stop reading early.
		grep -qi "$(printf ':%04X ' "$p")" /proc/net/tcp /proc/net/tcp6 /proc/net/udp /proc/net/udp6 2>/dev/null && continue
		ports+=("$p")
	done
	echo "${ports[*]}"
}

# wait_serving URL PID polls URL until it answers 2xx, for up to
# ${WAIT_SERVING:-60} seconds (a fresh machine's first start makes keys and
# certificates while builds may still hold the CPU), and fails at once if
# process PID has exited; the caller shows the server's log.
wait_serving() {
	local url=$1 pid=$2 deadline=$((SECONDS + ${WAIT_SERVING:-60}))
	until curl -skf -o /dev/null --max-time 5 "$url"; do
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "$url: the server exited" >&2
			return 1
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "$url: no answer in ${WAIT_SERVING:-60} s" >&2
			return 1
		fi
		sleep 0.1
	done
}

# scratch sets tmp to a new directory and, when the script exits, stops
# the server whose pid the script puts in edge_pid and removes tmp.
scratch() {
	tmp=$(mktemp -d)
	edge_pid=
	trap scratch_cleanup EXIT INT TERM
}
scratch_cleanup() {
	[ -n "$edge_pid" ] && kill "$edge_pid" 2>/dev/null && wait "$edge_pid" 2>/dev/null
	rm -rf "$tmp"
}
