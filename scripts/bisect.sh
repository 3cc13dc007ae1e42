#!/usr/bin/env bash
# make check-bisect: builds the kernel (and libbpf, bpftool and the
# selftests where a patch touches them) after each patch of the series in
# turn, in a worktree and build directory of its own, incrementally.
# Upstream's test_verifier, test_maps and test_progs are built as
# check-upstream builds them, with vmlinux.h from the test kernel's BTF
# (make build first): this config has no debug information.
#   BISECT_FROM=N  start at patch N (the ones before it were built before)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=$WORK/bisect-src
build=$WORK/build-bisect
tools=$WORK/bisect-tools

git -C "$TREE" worktree prune
if ! git -C "$src" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	rm -rf "$src"
	git -C "$TREE" worktree add -q --detach "$src" base
fi
mkdir -p "$tools/selftest"

# The test config without debug information: what compiles is the same,
# and DWARF and BTF would triple the time of every step.
config=$WORK/bisect-config/kernel.config
mkdir -p "${config%/*}"
grep -v '^CONFIG_DEBUG_INFO' "$REPO/config/kernel.config" >"$config"

total=$SECONDS
n=0
for commit in $(git -C "$TREE" rev-list --reverse base..devbpf); do
	n=$((n + 1))
	[ "$n" -ge "${BISECT_FROM:-1}" ] || continue
	subject=$(git -C "$TREE" log -1 --format=%s "$commit")
	start=$SECONDS
	git -C "$src" checkout -q --detach "$commit"
	run_logged bisect-kconfig kconfig_merge "$src" "$build" "$config"
	run_logged "bisect-$n-kernel" kmake "$src" "$build" bzImage
	changed=$(git -C "$src" diff --name-only "$commit^" "$commit")
	if grep -q '^tools/' <<<"$changed"; then
		run_logged "bisect-$n-tools" build_tools "$src" "$tools"
	fi
	if grep -q '^tools/testing/selftests/bpf_dev/' <<<"$changed"; then
		run_logged "bisect-$n-headers" kmake "$src" "$build" headers_install
		run_logged "bisect-$n-selftest" make -C "$src/tools/testing/selftests/bpf_dev" \
			OUTPUT="$tools/selftest" KHDR_INCLUDES="-isystem $build/usr/include"
	fi
	if grep -q '^tools/testing/selftests/bpf/' <<<"$changed"; then
		run_logged "bisect-$n-headers" kmake "$src" "$build" headers_install
		DEVBPF_UPSTREAM_SRC=$src DEVBPF_UPSTREAM_DIR=$WORK/bisect-upstream \
			DEVBPF_UPSTREAM_HEADERS=$build/usr "$REPO/scripts/upstream.sh" --build-only
	fi
	msg "patch $n builds ($((SECONDS - start)) s): $subject"
done
msg "patches ${BISECT_FROM:-1} to $n build, one after the other, in $((SECONDS - total)) s"
