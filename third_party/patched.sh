#!/usr/bin/env bash
# Each patched dependency, third_party/<name>, is the pristine module plus
# third_party/<name>.patch; its README.md is ours (upstream's, if any, is
# the project's front page).
#
#   third_party/patched.sh check <name>   the tree equals pristine + patch (CI)
#   third_party/patched.sh diff <name>    rewrite <name>.patch from the tree
set -euo pipefail
name=${2:-}
case "$name" in
quic-go) MODULE=github.com/quic-go/quic-go VERSION=v0.63.0 ;;
x-net) MODULE=golang.org/x/net VERSION=v0.60.0 ;;
qpack) MODULE=github.com/quic-go/qpack VERSION=v0.6.0 ;;
*)
	echo "usage: $0 check|diff quic-go|x-net|qpack" >&2
	exit 2
	;;
esac
here=$(cd "$(dirname "$0")" && pwd)
tree=$here/$name
patchfile=$here/$name.patch
# The pristine module, from the module cache (downloaded if missing).
pristine=$(cd "$here/.." && go mod download -json "$MODULE@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$pristine" ] || { echo "$MODULE $VERSION not in the module cache" >&2; exit 1; }

case "${1:-}" in
check)
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	cp -r "$pristine" "$work/$name"
	chmod -R u+w "$work/$name"
	# git apply, outside any repository, works like patch(1), which a
	# fresh machine may lack.
	(cd "$work/$name" && git apply -p1 "$patchfile")
	if ! diff -r --exclude=README.md "$work/$name" "$tree" >"$work/diff"; then
		cat "$work/diff" >&2
		echo "third_party/$name differs from $MODULE $VERSION + $name.patch: edit the tree, then run $0 diff $name" >&2
		exit 1
	fi
	;;
diff)
	# Files git ignores (a test's output, such as quic-go's integration
	# tests' keylog.txt) would go into the patch but not into a commit,
	# and a clean checkout would then fail the check.
	if ignored=$(git -C "$here" ls-files --others --ignored --exclude-standard -- "$name") && [ -n "$ignored" ]; then
		echo "third_party/$name has files git ignores; remove them first:" >&2
		echo "$ignored" >&2
		exit 1
	fi
	# diff exits 1 when the trees differ, which they do.
	# Paths a/ and b/, no timestamps: the patch only changes with the code.
	(cd "$here" && diff -ruN --exclude=README.md "$pristine" "$name" |
		sed -E -e "s#^diff -ruN .* $name/(.*)\$#diff -ruN a/\1 b/\1#" \
			-e "s#^--- $pristine/([^\t]*).*#--- a/\1#" -e "s#^\+\+\+ $name/([^\t]*).*#+++ b/\1#" >"$patchfile") || true
	;;
*)
	echo "usage: $0 check|diff quic-go|x-net|qpack" >&2
	exit 2
	;;
esac
