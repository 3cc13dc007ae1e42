#!/usr/bin/env bash
# upstream.sh: upstream's BPF selftests on the patched kernel, run as root,
# as a user who holds the /dev/bpf grant, and as the same user without it,
# then compared test by test (make check-upstream). UPSTREAM_SUITES names
# the suites, comma-separated (default: all three):
#   test_verifier  all of it
#   test_progs     test_progs -t verifier, from a test_progs built with
#                  prog_tests/verifier.c alone
#   test_maps      without the map tests that need BPF skeletons; about six
#                  minutes per run under TCG
#   kselftests     not BPF: the tree's own kselftests of what the series
#                  changes around ptrace and procfs (KSFT_DIRS below:
#                  ptrace, pidfd, proc, exec, capabilities, ...), as root,
#                  on the patched kernel and on the unpatched one (tag
#                  base, the same config less CONFIG_BPF_DEV, built in
#                  $WORK/base/build-test), compared test by test
# A BPF suite passes when the grant run's results equal root's test for
# test, but for the exceptions named below, and the run without the grant
# differs from root's: the comparison can tell. kselftests passes when
# both kernels' results are the same test for test, but for the
# exceptions named below. A missing run fails its suite; a boot that
# hangs, panics or splats is one more failure. Ends with "N passed, N
# failed".
#
# --build-only builds the BPF suites and stops (make check-bisect, at each
# patch that touches selftests/bpf): from DEVBPF_UPSTREAM_SRC instead of $TREE, in
# DEVBPF_UPSTREAM_DIR instead of $WORK/upstream, against the UAPI headers
# in DEVBPF_UPSTREAM_HEADERS instead of $HEADERS_BUILD/usr, without bpf_testmod.
#
# Built from $TREE in $WORK/upstream for the kernel in $BUILD, incrementally:
# upstream's Makefile makes libbpf, bpftool, vmlinux.h, the BPF objects and
# the skeletons; the test programs (static) and bpf_testmod.ko are made
# here, as that Makefile would make all of test_progs. Nothing is written
# into $TREE. The guest is the busybox one (guest/busybox/init,
# guest/main.sh) with the tests added; guest/upstream/upstream.sh runs
# them.
#
# This file chooses the suites, the exceptions and the folders, and boots;
# upstream/build.sh builds and packs, upstream/compare.sh reads the runs
# and compares them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

build_only=0
case ${1:-} in
--build-only) build_only=1 ;;
'') ;;
*) die "usage: upstream.sh [--build-only]" ;;
esac
SRC=${DEVBPF_UPSTREAM_SRC:-$TREE}
UP=${DEVBPF_UPSTREAM_DIR:-$WORK/upstream}
KHDR=${DEVBPF_UPSTREAM_HEADERS:-$HEADERS_BUILD/usr}
LOG_PREFIX=upstream
[ "$build_only" -eq 0 ] || LOG_PREFIX=bisect-upstream

IFS=, read -ra suites <<<"${UPSTREAM_SUITES:-test_verifier,test_progs,test_maps,kselftests}"
bpf_suites=() ksft=0
for s in "${suites[@]}"; do
	case $s in
	test_verifier | test_progs | test_maps) bpf_suites+=("$s") ;;
	kselftests) ksft=1 ;;
	*) die "UPSTREAM_SUITES: no suite '$s' (test_verifier, test_progs, test_maps, kselftests)" ;;
	esac
done
[ "$build_only" -eq 0 ] || bpf_suites=(test_verifier test_progs test_maps) ksft=0

# exception SUITE TEST WHY: where the grant cannot stand in for root for a
# reason outside BPF. TEST is an extended regex on test names; differences
# it matches are printed with WHY and do not fail the suite. (The non-BPF
# needs that the guest meets for the user instead are in
# guest/upstream/upstream.sh.)
ex_suite=() ex_test=() ex_why=()
exception() {
	ex_suite+=("$1") ex_test+=("$2") ex_why+=("$3")
}
exception test_progs '^verifier_mtu(/|$)' \
	"the test raises CAP_BPF and CAP_NET_ADMIN and drops CAP_SYS_ADMIN and CAP_PERFMON itself; the grant stands for all four or for none"

# The tree's kselftests (suite kselftests): the dirs whose tests reach
# what the series changes: ptrace_may_access() and commoncap.c's ptrace
# and exec checks (ptrace, pidfd's pidfd_getfd(), proc's /proc/<pid>/
# files, nsfs's /proc/<pid>/ns, capabilities, exec), fork and exit (clone3,
# pid_namespace, core's unshare). kcmp, seccomp and landlock's ptrace tests
# would too, but the test config has no CONFIG_KCMP, CONFIG_SECCOMP or
# CONFIG_SECURITY_LANDLOCK: they would fail alike on both kernels.
KSFT_DIRS=(ptrace pidfd proc exec capabilities nsfs clone3 pid_namespace core)
# ksft_exclude DIR:TEST WHY: a test of those dirs that is not run
ksft_out=() ksft_out_why=()
ksft_exclude() {
	ksft_out+=("$1") ksft_out_why+=("$2")
}
ksft_exclude exec:binfmt_script.py "a Python script, and the busybox guest has no python3"

SELFTESTS=$SRC/tools/testing/selftests/bpf
OUT=$UP/selftests # OUTPUT of upstream's Makefile
OBJ=$UP/obj       # the test programs' objects
GEN=$UP/gen       # their tests.h, which upstream's Makefile writes into $TREE
BIN=$UP/bin       # what the guest gets
RESULTS=$UP/results           # the runs on the patched kernel
RESULTS_BASE=$UP/results-base # kselftests on the unpatched kernel
KSFT=$UP/kselftests           # kselftests: build/DIR (OUTPUT), install (the guest's)

. "$(dirname "$0")/upstream/build.sh"
. "$(dirname "$0")/upstream/compare.sh"

# --- main -------------------------------------------------------------------

start=$SECONDS
[ ${#bpf_suites[@]} -eq 0 ] || build
if [ "$ksft" -eq 1 ]; then
	[ -d "$KHDR/include" ] || die "no UAPI headers in $KHDR (run: make build)"
	msg "building the kselftests of ${KSFT_DIRS[*]} (log: $LOGS/$LOG_PREFIX-kselftests.log)"
	run_logged "$LOG_PREFIX"-kselftests build_kselftests
	build_base_kernel
fi
msg "built in $((SECONDS - start)) s"
[ "$build_only" -eq 0 ] || exit 0
pack_guest

# boot KERNEL LOG SUITE...: the guest on KERNEL, with a timeout for the
# SUITEs under TCG, with room (test_maps takes about six minutes per run);
# only the guest's own lines on the terminal: the tests' output is long
boot() {
	local kernel=$1 log=$2 s timeout_s=120
	shift 2
	for s; do
		case $s in
		test_verifier) timeout_s=$((timeout_s + 600)) ;;
		test_progs) timeout_s=$((timeout_s + 900)) ;;
		test_maps) timeout_s=$((timeout_s + 2700)) ;;
		kselftests) timeout_s=$((timeout_s + 900)) ;;
		esac
	done
	DEVBPF_BOOT_KERNEL=$kernel DEVBPF_TIMEOUT=${DEVBPF_TIMEOUT:-$timeout_s} DEVBPF_CONSOLE_LOG=$log \
		"$REPO/scripts/boot.sh" busybox upstream "$(IFS=,; echo "$*")" |
		{ grep --line-buffered '^devbpf: ' || true; }
}

# the kselftests first, before the BPF suites change sysctls
boot_suites=("${bpf_suites[@]}")
[ "$ksft" -eq 0 ] || boot_suites=(kselftests "${bpf_suites[@]}")
log=$LOGS/console-$KCONFIG_FLAVOUR-busybox-upstream.log
base_log=$LOGS/console-base-busybox-upstream.log
boot_failed=0
start=$SECONDS
boot "$BUILD/arch/x86/boot/bzImage" "$log" "${boot_suites[@]}" || boot_failed=$((boot_failed + 1))
msg "suites ran in $((SECONDS - start)) s; console: $log"
split_runs "$log" "$RESULTS"
if [ "$ksft" -eq 1 ]; then
	start=$SECONDS
	boot "$BASE_BZIMAGE" "$base_log" kselftests || boot_failed=$((boot_failed + 1))
	msg "the unpatched kernel's kselftests ran in $((SECONDS - start)) s; console: $base_log"
	split_runs "$base_log" "$RESULTS_BASE"
fi

passed=0 failed=$boot_failed
[ $boot_failed -eq 0 ] || echo "FAIL $boot_failed boot(s) (see above)"
for s in "${suites[@]}"; do
	if [ "$s" = kselftests ]; then
		if compare_kselftests; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
	elif compare "$s"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
