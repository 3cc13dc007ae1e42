#!/usr/bin/env bash
# Makes $TREE a git repository of apt's linux-source-6.12 (tag "base")
# with patches/ applied on branch "devbpf"; re-applies when patches/
# changed, and never throws away commits or edits of a developer.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

version=$(source_version)
applied_file=$TREE/.git/devbpf-applied

unpack() {
	local tmp=$WORK/tree.unpack
	msg "unpacking $SOURCE_PKG $version into $TREE"
	rm -rf "$tmp" && mkdir -p "$tmp"
	tar -C "$tmp" -xf "$SOURCE_TARBALL"
	rm -rf "$TREE"
	mv "$tmp/linux-source-6.12" "$TREE" && rmdir "$tmp"
	git -C "$TREE" init -q -b devbpf
	# Debian's .gitignore ignores every top-level entry: add with -f.
	git -C "$TREE" add -A -f
	git -C "$TREE" -c user.name=devbpf -c user.email=devbpf@localhost \
		commit -q -m "$SOURCE_PKG $version"
	git -C "$TREE" tag base
	printf '%s\n' "$version" >"$TREE/.git/devbpf-base"
}

if [ ! -f "$TREE/.git/devbpf-base" ]; then
	unpack
elif [ "$(cat "$TREE/.git/devbpf-base")" != "$version" ]; then
	msg "apt's $SOURCE_PKG is now $version (the tree has $(cat "$TREE/.git/devbpf-base"))"
	[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
		die "$TREE has uncommitted changes; save them before the tree is replaced"
	unpack
fi

stamp=$(series_stamp)
head=$(git -C "$TREE" rev-parse HEAD)
read -r applied_stamp applied_head 2>/dev/null <"$applied_file" || applied_stamp=none applied_head=none

if [ "$applied_stamp" = "$stamp" ] && [ "$applied_head" = "$head" ]; then
	msg "tree: $TREE ($SOURCE_PKG $version + series, up to date)"
	exit 0
fi
if [ "$applied_head" != none ] && [ "$applied_head" != "$head" ]; then
	die "$TREE has commits that are not in patches/: run 'make export' to keep them, or 'git -C $TREE reset --hard $applied_head' to drop them"
fi
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes: commit them and run 'make export', or discard them"

msg "applying patches/ to $SOURCE_PKG $version"
git -C "$TREE" checkout -q -B devbpf base
git -C "$TREE" am --abort >/dev/null 2>&1 || true
# One git am for the whole series: each call would read the index again.
mapfile -t patches < <(series_patches)
if ! out=$(git -C "$TREE" -c user.name=devbpf -c user.email=devbpf@localhost \
	am -q --whitespace=nowarn "${patches[@]}" 2>&1); then
	# the patch it stopped at, counted from 1
	n=$(cat "$TREE/.git/rebase-apply/next" 2>/dev/null || echo 1)
	git -C "$TREE" am --abort >/dev/null 2>&1 || true
	git -C "$TREE" checkout -q -B devbpf base
	printf '%s\n' "$out" | grep -E '^(error|Patch failed)' >&2 || printf '%s\n' "$out" >&2
	die "patches/$(basename "${patches[n - 1]}") does not apply to $SOURCE_PKG $version (see the file named above); the series needs a rebase onto this version"
fi
printf '%s %s\n' "$stamp" "$(git -C "$TREE" rev-parse HEAD)" >"$applied_file"
msg "tree: $TREE ($SOURCE_PKG $version + $(git -C "$TREE" rev-list --count base..HEAD) patches)"
