#!/usr/bin/env bash
# third_party/quic-go is pristine quic-go $VERSION plus quic-go.patch; its
# README.md is ours (upstream's is quic-go's GitHub front page).
#
#   third_party/quic-go.sh check   the tree equals pristine + patch (CI)
#   third_party/quic-go.sh diff    rewrite quic-go.patch from the tree
set -euo pipefail
VERSION=v0.63.0
here=$(cd "$(dirname "$0")" && pwd)
tree=$here/quic-go
patchfile=$here/quic-go.patch
# The pristine module, from the module cache (downloaded if missing).
pristine=$(cd "$here/.." && go mod download -json "github.com/quic-go/quic-go@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$pristine" ] || { echo "quic-go $VERSION not in the module cache" >&2; exit 1; }

case "${1:-}" in
check)
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	cp -r "$pristine" "$work/quic-go"
	chmod -R u+w "$work/quic-go"
	# git apply, outside any repository, works like patch(1), which a
	# fresh machine may lack.
	(cd "$work/quic-go" && git apply -p1 "$patchfile")
	if ! diff -r --exclude=README.md "$work/quic-go" "$tree" >"$work/diff"; then
		cat "$work/diff" >&2
		echo "third_party/quic-go differs from quic-go $VERSION + quic-go.patch: edit the tree, then run $0 diff" >&2
		exit 1
	fi
	;;
diff)
	# diff exits 1 when the trees differ, which they do.
	# Paths a/ and b/, no timestamps: the patch only changes with the code.
	(cd "$here" && diff -ruN --exclude=README.md "$pristine" quic-go |
		sed -E -e "s#^diff -ruN .* quic-go/(.*)\$#diff -ruN a/\1 b/\1#" \
			-e "s#^--- $pristine/([^\t]*).*#--- a/\1#" -e "s#^\+\+\+ quic-go/([^\t]*).*#+++ b/\1#" >"$patchfile") || true
	;;
*)
	echo "usage: $0 check|diff" >&2
	exit 2
	;;
esac
