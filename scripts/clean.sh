#!/usr/bin/env bash
# Removes the work directory, unless its tree holds work not in patches/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if [ -d "$TREE/.git" ]; then
	[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
		die "$TREE has uncommitted changes; not removing it"
	applied_head=none
	[ -f "$TREE/.git/devbpf-applied" ] && read -r _ applied_head <"$TREE/.git/devbpf-applied"
	[ "$applied_head" = none ] || [ "$applied_head" = "$(git -C "$TREE" rev-parse HEAD)" ] ||
		die "$TREE has commits not exported to patches/ (make export); not removing it"
fi
msg "removing $WORK"
rm -rf "$WORK"
