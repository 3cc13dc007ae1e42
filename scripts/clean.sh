#!/usr/bin/env bash
# Removes the work directory, after checking it holds nothing unexported.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if [ -d "$TREE/.git" ]; then
	[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
		die "$TREE has uncommitted changes; not removing it"
fi
msg "removing $WORK"
rm -rf "$WORK"
