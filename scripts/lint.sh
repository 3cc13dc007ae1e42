#!/usr/bin/env bash
# The hygiene gate: checkpatch --strict on every patch, shellcheck on every
# script, and the series applies to a fresh unpack of apt's tree.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

bad=0

# checkpatch's SPDX check needs Debian's python3 (with python3-ply).
for patch in $(series_patches); do
	out=$(PATH=/usr/bin:$PATH "$TREE/scripts/checkpatch.pl" --strict --terse \
		--no-summary "$patch" 2>&1 || true)
	if [ -n "$out" ]; then
		printf '%s\n' "$out" >&2
		msg "checkpatch: ${patch#"$REPO"/} is not clean"
		bad=1
	fi
done
[ $bad -eq 0 ] && msg "checkpatch --strict: $(series_patches | wc -l) patches clean"

scripts=("$REPO"/scripts/*.sh "$REPO"/.ci/run "$REPO"/guest/*.sh "$REPO"/guest/init)
if (cd "$REPO" && shellcheck -x "${scripts[@]}"); then
	msg "shellcheck: ${#scripts[@]} scripts clean"
else
	bad=1
fi

# git am onto a fresh unpack, not onto the work tree (which may hold
# local commits).
scratch=$(mktemp -d "${TMPDIR:-/tmp}/devbpf-lint.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
tar -C "$scratch" -xf "$SOURCE_TARBALL"
fresh=$scratch/linux-source-6.12
git -C "$fresh" init -q && git -C "$fresh" add -A -f &&
	git -C "$fresh" -c user.name=lint -c user.email=lint@localhost commit -q -m base
if series_patches | xargs git -C "$fresh" -c user.name=lint -c user.email=lint@localhost am -q; then
	msg "git am: the series applies to a fresh unpack of $SOURCE_PKG $(source_version)"
else
	msg "git am: the series does not apply to a fresh unpack of $SOURCE_PKG $(source_version)"
	bad=1
fi
# The files the series adds: kernel-doc clean, and the rst parses clean.
added=$(git -C "$fresh" diff --name-only --diff-filter=A HEAD~"$(series_patches | wc -l)" HEAD)
for f in $added; do
	case $f in
	*.c | *.h)
		out=$(cd "$fresh" && PATH=/usr/bin:$PATH scripts/kernel-doc -none -Wall "$f" 2>&1)
		[ -z "$out" ] || { printf '%s\n' "$out" >&2; msg "kernel-doc: $f is not clean"; bad=1; }
		;;
	*.rst)
		if ! /usr/bin/python3 -c 'import sys, docutils.core
docutils.core.publish_doctree(open(sys.argv[1]).read(), source_path=sys.argv[1],
    settings_overrides={"report_level": 2, "halt_level": 2})' "$fresh/$f" >/dev/null; then
			msg "docutils: $f does not parse clean"
			bad=1
		fi
		;;
	esac
done
[ $bad -eq 0 ] && msg "kernel-doc and docutils: the files the series adds are clean"
exit $bad
