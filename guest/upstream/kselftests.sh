#!/bin/sh
# shellcheck shell=dash # busybox ash in the guest
# kselftests.sh: the tree's own kselftests of the areas the series
# touches (ptrace, pidfd, proc, exec, ...; scripts/upstream.sh builds them
# and lists them in kselftest-list.txt, boots this on the patched and on
# the unpatched kernel, and compares). Run as root, by the tree's runner,
# kselftest/runner.sh, as run_kselftest.sh runs it: TAP, each binary's
# output prefixed with "# ", a time limit per test (180 s, below),
# exit status 4 a skip. What a test leaves running is ended before the
# next one starts (sweep, below). Each dir's output lies between the lines
#   devbpf: upstream BEGIN kselftests DIR
#   devbpf: upstream END kselftests DIR rc=N Ns

BASE_DIR=/usr/lib/devbpf/kselftests
cd "$BASE_DIR" || exit 1
# shellcheck disable=SC1091 # the tree's, packed by scripts/upstream.sh
. ./kselftest/runner.sh

# orphans: the processes that PID 1 adopted since this script started;
# processes a test left behind end up there. Their /proc/<pid> goes away
# when they exit, and a later test that walks /proc (proc's read) fails
# if that happens under its readdir(): it fails by the timing of the
# test before it, on either kernel.
orphans() {
	for _stat in /proc/[0-9]*/stat; do
		{ read -r _fields <"$_stat"; } 2>/dev/null || continue
		# after the ")" that ends the command name: state, then parent
		# shellcheck disable=SC2086 # split into fields
		set -- ${_fields##*) }
		[ "${2:-}" = 1 ] || continue
		_pid=${_stat#/proc/}
		_pid=${_pid%/stat}
		case " $adopted_before " in *" $_pid "*) continue ;; esac
		echo "$_pid"
	done
}
adopted_before=$(orphans)

# sweep: kills what the test that just ended left running, and waits
# until PID 1 has reaped it, so that each test starts on a /proc of its own.
# busybox's timeout always leaves one: a watcher that sees its command
# gone within a second; it is ended with the rest, without a word.
sweep() {
	_left=$(orphans)
	[ -n "$_left" ] || return 0
	_names=$(for _p in $_left; do cat "/proc/$_p/comm" 2>/dev/null; done |
		grep -vx timeout | tr '\n' ' ')
	[ -z "$_names" ] || echo "devbpf: the test left processes running: ${_names% }; killed"
	_tries=0
	while [ -n "$_left" ] && [ "$_tries" -lt 100 ]; do
		# shellcheck disable=SC2086 # one word per pid
		kill -9 $_left 2>/dev/null
		sleep 0.1
		_tries=$((_tries + 1))
		_left=$(orphans)
	done
	[ -z "$_left" ] || echo "devbpf: still there after 10 s: $(echo "$_left" | tr '\n' ' ')"
}

# A test's time limit is its dir's settings file's, 45 s by default: made
# for native speed, and pidfd_test needs about that under TCG alone; a
# loaded host would time it out on one kernel and not on the other
export kselftest_override_timeout=180

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
	sweep
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
