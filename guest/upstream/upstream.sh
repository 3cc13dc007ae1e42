#!/bin/sh
# shellcheck shell=dash # busybox ash in the guest; both have ulimit -n
# upstream.sh SUITE...: upstream's BPF selftests (scripts/upstream.sh
# builds them and compares the runs), each suite run three ways:
#   root     as root
#   grant    as alice (uid 1000, group bpf) with SELFTESTS_BPF_DEV=/dev/bpf:
#            the test takes the node's grant itself, and gives it back and
#            takes it again where root would drop and raise capabilities
#   nogrant  the same user and command without SELFTESTS_BPF_DEV
# Suites: test_verifier, test_progs (-t verifier), test_maps; and
# kselftests, the tree's kselftests as root alone (kselftests.sh). Each run's
# output lies between the lines
#   devbpf: upstream BEGIN SUITE WHO
#   devbpf: upstream END SUITE WHO rc=N Ns
# Run as root, with /dev/bpf root:bpf 0440.

note() {
	echo "devbpf: upstream: $*"
}

# The BPF suites' setup, once, before the first of them: the kselftests,
# run first, find the guest as the unpatched kernel's boot does.
bpf_ready=
bpf_setup() {
	[ -z "$bpf_ready" ] || return 0
	bpf_ready=1
	# For all three runs alike: the unprivileged variants of the tests (/u,
	# @unpriv) run only where unprivileged bpf() is allowed (the kernel's
	# default is 2, off).
	echo 0 >/proc/sys/kernel/unprivileged_bpf_disabled
	note "all runs: kernel.unprivileged_bpf_disabled=0, so that the unprivileged variants run"

	# What the user gets besides the grant: non-BPF needs of the tests,
	# as patches 0012 and 0013 name them, and alike in the run without it.
	# 1. Dumps of loaded programs show kernel addresses to CAP_SYSLOG, or to
	#    anyone with kernel.perf_event_paranoid <= 1 (and kptr_restrict 0);
	#    verifier_scalar_ids/linked_regs_and_subreg_def compares them.
	echo 1 >/proc/sys/kernel/perf_event_paranoid
	note "exception: kernel.perf_event_paranoid=1 (kptr_restrict=$(cat /proc/sys/kernel/kptr_restrict)): program dumps show addresses without CAP_SYSLOG (test_progs verifier_scalar_ids)"
	# 2. sk_storage_map's stress test raises RLIMIT_NOFILE to 16640 unless it
	#    is that high already, which needs CAP_SYS_RESOURCE: root raises it.
	ulimit -n 16640
	note "exception: RLIMIT_NOFILE $(ulimit -n), raised by root (test_maps sk_storage_map; CAP_SYS_RESOURCE)"
	cd /usr/lib/devbpf/upstream || exit 1
	# 3. test_reuseport_array opens a SOCK_RAW socket, which needs CAP_NET_RAW:
	#    test_maps' user runs get it as their one (ambient) capability.
	cap_net_raw=13
	note "exception: test_maps runs as the user with CAP_NET_RAW (test_reuseport_array's SOCK_RAW socket)"

	user="1000 1000 $(awk -F: '$1 == "bpf" { print $3 }' /etc/group)"
}

# run SUITE WHO COMMAND...: COMMAND's output, framed for the host.
run() {
	_suite=$1 _who=$2
	shift 2
	echo "devbpf: upstream BEGIN $_suite $_who"
	_start=$(date +%s)
	"$@" </dev/null 2>&1
	_rc=$?
	echo "devbpf: upstream END $_suite $_who rc=$_rc $(($(date +%s) - _start))s"
}

# The grant does not pass for CAP_SYS_MODULE: under it, test_verifier and
# test_progs use the bpf_testmod.ko that root loaded. Root's own runs load
# and unload it themselves.
testmod() {
	[ -e /sys/module/bpf_testmod ] && return
	insmod ./bpf_testmod.ko && note "root loaded bpf_testmod.ko for the grant run (CAP_SYS_MODULE)"
}

for suite in "$@"; do
	if [ "$suite" = kselftests ]; then
		kselftests.sh
		continue
	fi
	bpf_setup
	caps=
	case $suite in
	test_verifier) cmd=./test_verifier ;;
	test_progs) cmd="./test_progs -t verifier" ;;
	test_maps) cmd=./test_maps caps="-a $cap_net_raw" ;;
	*)
		note "unknown suite '$suite'"
		continue
		;;
	esac
	# shellcheck disable=SC2086 # cmd, caps and user are lists of words
	{
		run "$suite" root $cmd
		testmod
		run "$suite" grant setcreds $caps $user /bin/env SELFTESTS_BPF_DEV=/dev/bpf $cmd
		run "$suite" nogrant setcreds $caps $user /bin/env $cmd
	}
done
