#!/usr/bin/env bash
# check.sh [debian|tools]: the suites on the kernel built for
# $DEVBPF_KCONFIG, in one boot, then the count of its TAP results:
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
tools/*) guest=debian suites=libbpf_tools ;;
debian/test) guest=debian suites=deploy,apt_tools,scopes,apparmor ;;
/test | /debug) guest=busybox suites=$core ;;
/distro) guest=debian suites=$core,deploy,apt_tools,scopes,apparmor ;;
*) die "usage: check.sh [debian|tools] (debian: the test config only)" ;;
esac

log=$LOGS/console-$KCONFIG_FLAVOUR-$guest-check${1:+-$1}.log
problems=0
DEVBPF_CONSOLE_LOG=$log "$REPO/scripts/boot.sh" "$guest" check "$suites" || problems=1

results=$(grep -E '^(not )?ok [0-9]+ ' "$log" || true)
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
