#!/usr/bin/env bash
# check.sh [debian|tools]: the suites on the kernel built for
# $DEVBPF_KCONFIG, then one count of the TAP results of all boots:
#   test    busybox: the kselftest, libbpf, bpftool, launcher, stress and fuzz;
#   debug   busybox, the same suites (KASAN and lockdep are slow)
#   distro  Debian: every suite, on Debian's own kernel config
# With "debian" (the test config): the Debian guest's, the deployment
# under the real udev, sysusers, systemd, Debian's own bpftool and
# libbpf-tools (apt_tools), the package's scopes (scopes) and AppArmor
# profiles (apparmor). With "tools": only libbpf_tools, every tool of
# Debian's libbpf-tools as root and as a member, on the Debian guest.
# A boot that hangs, panics, splats or stops early counts as a failure.
# Ends with "N passed, N failed" (and ", N skipped").
set -euo pipefail
. "$(dirname "$0")/lib.sh"

core=kselftest,libbpf,bpftool,launcher,stress,fuzz
case ${1:-}/$KCONFIG_FLAVOUR in
tools/*) boots=("debian libbpf_tools") ;;
debian/test) boots=("debian deploy,apt_tools,scopes,apparmor") ;;
/test | /debug) boots=("busybox $core") ;;
/distro) boots=("debian $core,deploy,apt_tools,scopes,apparmor") ;;
*) die "usage: check.sh [debian|tools] (debian: the test config only)" ;;
esac

# The boots run side by side, each guest's console in its log, printed
# when it is done: a guest waits on its timers and tests as often as on
# its CPUs.
logs=()
pids=()
problems=0
for b in "${boots[@]}"; do
	read -r guest suites <<<"$b"
	log=$LOGS/console-$KCONFIG_FLAVOUR-$guest-check${1:+-$1}.log
	logs+=("$log")
	DEVBPF_CONSOLE_LOG=$log "$REPO/scripts/boot.sh" "$guest" check "$suites" >"$log.out" 2>&1 &
	pids+=($!)
done
for i in "${!pids[@]}"; do
	wait "${pids[i]}" || problems=$((problems + 1))
	cat "${logs[i]}.out"
done

results=$(cat "${logs[@]}" | grep -E '^(not )?ok [0-9]+ ' || true)
passed=$(grep -E '^ok ' <<<"$results" | grep -vc '# SKIP' || true)
skipped=$(grep -c '# SKIP' <<<"$results" || true)
failed=$(grep -c '^not ok ' <<<"$results" || true)
[ $((passed + failed)) -gt 0 ] || { msg "FAIL: no test result was printed"; problems=$((problems + 1)); }
grep '^not ok ' <<<"$results" | sed 's/^/devbpf: FAILED: /' >&2 || true
failed=$((failed + problems))
summary="$passed passed, $failed failed"
[ "$skipped" -eq 0 ] || summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ]
