#!/bin/sh
# What a guest does, as devbpf.mode= on the kernel command line says; run
# by the busybox guest's init and by devbpf.service in the Debian guest.
#   check      the suites named in devbpf.suites= (suites.sh)
#   run        the demo (demo.sh)
#   upstream   upstream's BPF selftests named in devbpf.suites= (upstream.sh)
#   bench      the benchmark; bench_base: its part that the unpatched
#              kernel can run
#   probe      nothing (the host's KVM probe)
# Ends with the line the host waits for.

arg() {
	sed -n "s/.*devbpf\\.$1=\\([a-z_,]*\\).*/\\1/p" /proc/cmdline
}

mode=$(arg mode)
case $mode in
check)
	# shellcheck disable=SC2046 # one word per suite
	suites.sh $(arg suites | tr , ' ')
	;;
upstream)
	# shellcheck disable=SC2046 # one word per suite
	upstream.sh $(arg suites | tr , ' ')
	;;
run) demo.sh ;;
bench) bench.sh ;;
bench_base) bench.sh base ;;
probe) ;;
*) echo "devbpf: unknown devbpf.mode '$mode'" ;;
esac
echo "devbpf: guest done"
