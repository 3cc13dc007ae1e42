#!/bin/sh
# shellcheck shell=dash # busybox ash in the guest
# kselftests.sh: the tree's own kselftests of the areas the series
# touches (ptrace, pidfd, proc, exec, ...; scripts/upstream.sh builds them
# and lists them in kselftest-list.txt, boots this on the patched and on
# the unpatched kernel, and compares). Run as root, by the tree's runner,
# kselftest/runner.sh, as run_kselftest.sh runs it: TAP, each binary's
# output prefixed with "# ", its dir's settings timeout (45 s by default),
# exit status 4 a skip. Each dir's output lies between the lines
#   devbpf: upstream BEGIN kselftests DIR
#   devbpf: upstream END kselftests DIR rc=N Ns

BASE_DIR=/usr/lib/devbpf/kselftests
cd "$BASE_DIR" || exit 1
# shellcheck disable=SC1091 # the tree's, packed by scripts/upstream.sh
. ./kselftest/runner.sh

# runner.sh times a test out with GNU timeout --foreground where
# /usr/bin/timeout exists, and runs it without a limit where not; busybox's
# timeout has no --foreground, and ends with 128 + SIGTERM where GNU's
# ends with 124
# shellcheck disable=SC2154 # kselftest_timeout and timeout_rc: runner.sh's
tap_timeout() {
	# shellcheck disable=SC2086 # the command line, as runner.sh passes it
	timeout "$kselftest_timeout" $1
	_rc=$?
	[ "$_rc" -ne 143 ] || _rc=$timeout_rc
	return "$_rc"
}

# What udev or systemd would make: runner.sh writes to /dev/stdout
for _fd in stdin:0 stdout:1 stderr:2; do
	[ -e "/dev/${_fd%:*}" ] || ln -s "/proc/self/fd/${_fd#*:}" "/dev/${_fd%:*}"
done
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd

for dir in $(cut -d: -f1 kselftest-list.txt | uniq); do
	echo "devbpf: upstream BEGIN kselftests $dir"
	start=$(date +%s)
	tests=$(sed -n "s/^$dir://p" kselftest-list.txt)
	# shellcheck disable=SC2086 # one word per test
	(cd "$dir" && run_many $tests) </dev/null 2>&1
	rc=$?
	echo "devbpf: upstream END kselftests $dir rc=$rc $(($(date +%s) - start))s"
done
