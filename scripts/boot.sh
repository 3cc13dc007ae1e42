#!/usr/bin/env bash
# boot.sh GUEST MODE [SUITES]: boots the built kernel in QEMU with a guest.
#   GUEST  busybox (initramfs.cpio) or debian (debian.cpio: systemd as PID 1)
#   MODE   check  the suites in SUITES (comma-separated, see guest/suites.sh)
#          run    the demo
#          shell  an interactive shell as alice (busybox; Ctrl-A X quits)
#          bench  the benchmark, under TCG with -icount (a deterministic
#                 clock); DEVBPF_BOOT_KERNEL boots another bzImage
#          bench_base  the part of it that the unpatched kernel can run
#          upstream  upstream's BPF selftests in SUITES (busybox; the
#                 initramfs that scripts/upstream.sh packs)
# The console goes to $LOGS (or DEVBPF_CONSOLE_LOG). The boot fails on a
# hang, a panic, a kernel splat, or a guest that did not reach its end;
# counting test results is check.sh's business.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

guest=${1:-}
mode=${2:-}
suites=${3:-}
case $guest/$mode in
busybox/check | busybox/shell | busybox/bench | busybox/bench_base | busybox/upstream) ;;
debian/check | debian/run) ;;
*) die "usage: boot.sh busybox check|shell|bench|bench_base|upstream, or boot.sh debian check|run" ;;
esac

kernel=${DEVBPF_BOOT_KERNEL:-$BUILD/arch/x86/boot/bzImage}
append="console=ttyS0 loglevel=5 panic=-1 devbpf.mode=$mode devbpf.suites=$suites"
if [ "$guest" = busybox ]; then
	initrd=$GUEST/initramfs.cpio
	[ "$mode" != upstream ] || initrd=$WORK/upstream/initramfs.cpio
	mem=1G
else
	initrd=$GUEST/debian.cpio
	# The root file system lives in RAM. systemd boots to devbpf.target,
	# reports only failures on the console, and starts no getty there.
	mem=2G
	append="$append systemd.unit=devbpf.target systemd.show_status=error systemd.getty_auto=0"
fi
if [ ! -f "$kernel" ] || [ ! -f "$initrd" ]; then
	die "nothing built for '$KCONFIG_FLAVOUR' yet (run: make build, and make debian for the Debian guest)"
fi
timeout_s=${DEVBPF_TIMEOUT:-900}

# rdrand: the guest's random pool is ready at once (systemd waits for it);
# but not for a benchmark, where the host's randomness would make boots
# differ: there the guest's entropy comes from its instruction clock
cpu=qemu64,+rdrand
[ "${mode#bench}" = "$mode" ] || cpu=qemu64
qemu=(qemu-system-x86_64 -cpu "$cpu" -m "$mem" -smp 2 -no-reboot -display none
	-kernel "$kernel" -initrd "$initrd" -append "$append")
# KVM only where it really works: on some hosts /dev/kvm opens but a guest
# never runs. One short probe boot decides; the answer is kept in $WORK.
kvm_works() {
	local cache=$WORK/kvm-works
	[ -w /dev/kvm ] || return 1
	if [ ! -f "$cache" ]; then
		if timeout 30 "${qemu[@]/devbpf.mode=$mode/devbpf.mode=probe}" -accel kvm \
			-serial stdio -monitor none </dev/null 2>/dev/null | grep -q 'guest done'; then
			echo yes >"$cache"
		else
			echo no >"$cache"
		fi
		msg "KVM $(sed 's/no/does not work here/;s/yes/works/' "$cache"): $cache"
	fi
	[ "$(cat "$cache")" = yes ]
}
if [ "$cpu" = qemu64 ]; then
	# The guest clock counts instructions: the same figures every run.
	qemu+=(-accel tcg -icount 'shift=0,sleep=off')
elif [ "$guest" = busybox ] && kvm_works; then
	qemu+=(-accel kvm)
else
	qemu+=(-accel tcg)
fi

if [ "$mode" = shell ]; then
	exec "${qemu[@]}" -serial mon:stdio -monitor none
fi

mkdir -p "$LOGS"
log=${DEVBPF_CONSOLE_LOG:-$LOGS/console-$KCONFIG_FLAVOUR-$guest-$mode.log}
msg "booting $kernel with the $guest guest ($mode${suites:+: $suites}; console log: $log; timeout ${timeout_s}s)"
start=$SECONDS
set +e
timeout "$timeout_s" "${qemu[@]}" -serial stdio -monitor none </dev/null |
	tr -d '\r' | tee "$log"
qemu_rc=${PIPESTATUS[0]}
set -e
msg "guest ran for $((SECONDS - start)) s"

problems=()
if [ "$qemu_rc" -eq 124 ]; then
	problems+=("the guest hung: no end after ${timeout_s}s")
elif grep -q 'Kernel panic' "$log"; then
	problems+=("the kernel panicked")
elif ! grep -q '^devbpf: guest done' "$log"; then
	problems+=("the guest stopped before the end (qemu exit status $qemu_rc)")
fi
splat='BUG:|WARNING:|KASAN:|UBSAN:|Oops|Call Trace|lockdep|INFO: task .* blocked'
if grep -Eq "$splat" "$log"; then
	problems+=("the kernel log shows a splat")
	msg "kernel splat lines:"
	grep -En "$splat" "$log" | head -n 20 >&2
fi
if [ ${#problems[@]} -gt 0 ]; then
	for p in "${problems[@]}"; do msg "FAIL: $p"; done
	msg "last console lines:"
	tail -n 25 "$log" >&2
	exit 1
fi
