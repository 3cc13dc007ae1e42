#!/usr/bin/env bash
# Boots the built kernel and initramfs in QEMU.
#   boot.sh check  stream the console, count the TAP results, and fail on a
#                  failed test, a kernel splat, a panic or a hang
#   boot.sh run    the demo on the serial console
#   boot.sh shell  an interactive shell as alice (Ctrl-A X quits QEMU)
#   boot.sh bench  the benchmark, under TCG with -icount (a deterministic
#                  clock); DEVBPF_BOOT_KERNEL boots another bzImage
#   boot.sh footprint  only prints task_struct's slab object size
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:-}
case $mode in
check | run | shell | bench | footprint) ;;
*) die "usage: boot.sh check|run|shell|bench|footprint" ;;
esac

kernel=${DEVBPF_BOOT_KERNEL:-$BUILD/arch/x86/boot/bzImage}
initrd=$GUEST/initramfs.cpio
if [ ! -f "$kernel" ] || [ ! -f "$initrd" ]; then
	die "nothing built for '$KCONFIG_FLAVOUR' yet (run: make build)"
fi
timeout_s=${DEVBPF_TIMEOUT:-900}

qemu=(qemu-system-x86_64 -m 1G -smp 2 -no-reboot -display none
	-kernel "$kernel" -initrd "$initrd"
	-append "console=ttyS0 loglevel=5 panic=-1 devbpf.mode=$mode")
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
if [ "$mode" = bench ] || [ "$mode" = footprint ]; then
	# The guest clock counts instructions: the same figures every run.
	qemu+=(-accel tcg -icount 'shift=0,sleep=off')
elif kvm_works; then
	qemu+=(-accel kvm)
else
	qemu+=(-accel tcg)
fi

if [ "$mode" = shell ]; then
	exec "${qemu[@]}" -serial mon:stdio -monitor none
fi

mkdir -p "$LOGS"
log=${DEVBPF_CONSOLE_LOG:-$LOGS/console-$KCONFIG_FLAVOUR-$mode.log}
msg "booting $kernel ($mode; console log: $log; timeout ${timeout_s}s)"
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

if [ "$mode" != check ]; then
	[ ${#problems[@]} -eq 0 ] || die "${problems[*]}"
	exit 0
fi

passed=$(grep -E '^ok [0-9]+ ' "$log" | grep -vc '# SKIP' || true)
skipped=$(grep -E '^ok [0-9]+ ' "$log" | grep -c '# SKIP' || true)
failed=$(grep -cE '^not ok [0-9]+ ' "$log" || true)
[ $((passed + failed)) -gt 0 ] || problems+=("no test result was printed")
if [ ${#problems[@]} -gt 0 ]; then
	for p in "${problems[@]}"; do msg "FAIL: $p"; done
	msg "last console lines:"
	tail -n 25 "$log" >&2
	failed=$((failed + ${#problems[@]}))
fi
grep -E '^not ok [0-9]+ ' "$log" | sed 's/^/devbpf: FAILED: /' >&2 || true
summary="$passed passed, $failed failed"
[ "$skipped" -eq 0 ] || summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ]
