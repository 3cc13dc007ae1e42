#!/usr/bin/env bash
# Writes the commits base..devbpf of $TREE back to patches/: one
# git-format-patch file each, the series file, and the cover letter's
# shortlog and diffstat. The cover letter's text above them is kept.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$TREE/.git" ] || die "no work tree at $TREE (run: make tree)"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes: commit them first"
[ "$(git -C "$TREE" rev-list --count base..HEAD)" -gt 0 ] ||
	die "$TREE has no commits on top of base"

out=$REPO/patches
# Every numbered patch but the cover letter, as names.
numbered() {
	local f
	for f in "$out"/[0-9][0-9][0-9][0-9]-*.patch; do
		[ -e "$f" ] || continue
		case ${f##*/} in 0000-*) ;; *) printf '%s\n' "${f##*/}" ;; esac
	done
}

numbered | while read -r f; do rm -f "$out/$f"; done
git -C "$TREE" format-patch -q --no-signature --zero-commit \
	--start-number 1 -o "$out" base..HEAD
numbered >"$out/series"

cover=$out/0000-cover-letter.patch
if [ -f "$cover" ]; then
	# Keep the text up to the shortlog ("Name (N):"), then renew the rest.
	tmp=$(mktemp)
	awk '/^[^ \t].* \([0-9]+\):$/ { exit } { print }' "$cover" >"$tmp"
	{
		git -C "$TREE" shortlog base..HEAD
		git -C "$TREE" diff --stat=72 --summary base HEAD
		printf '\nbase: Debian %s %s\n' "$SOURCE_PKG" "$(cat "$TREE/.git/devbpf-base")"
	} >>"$tmp"
	n=$(wc -l <"$out/series")
	sed "s|^Subject: \[PATCH 0/[0-9]*\]|Subject: [PATCH 0/$n]|" "$tmp" >"$cover"
	rm -f "$tmp"
fi

printf '%s %s\n' "$(series_stamp)" "$(git -C "$TREE" rev-parse HEAD)" >"$TREE/.git/devbpf-applied"
msg "exported $(wc -l <"$out/series") patches to patches/"
