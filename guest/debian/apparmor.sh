#!/bin/bash
# AppArmor, Debian's default security module, sees the grant as it sees
# CAP_BPF: profiles loaded with Debian's apparmor_parser, entered with
# aa-exec, decide whether alice (group bpf) may take the grant through
# bpf-run, and what she may do with it. Run as root in devbpf.service,
# after devbpf-admin is installed. Prints TAP.
# shellcheck source=tap.sh
. /usr/lib/devbpf/tap.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bpf_dev_line() { grep '^BpfDev:' "$tmp/out" | tr -d ' \t'; }
# denied PROFILE CAPNAME: the kernel log has AppArmor's record of a
# refused capability CAPNAME in PROFILE.
denied() {
	dmesg | grep 'apparmor="DENIED" operation="capable"' |
		grep "profile=\"$1\"" | grep -q "capname=\"$2\""
}


# profile NAME RULE...: load a profile that may use every file (and run
# programs in itself) and the RULEs, nothing else.
profile() {
	local name=$1
	shift
	{
		echo "abi <abi/3.0>,"
		echo "profile $name {"
		echo "  /** rwlkmix,"
		[ $# -eq 0 ] || printf '  %s,\n' "$@"
		echo "}"
	} >"$tmp/$name"
	apparmor_parser -r "$tmp/$name" 2>"$tmp/err"
}

echo "1..12"

[ "$(aa-enabled 2>&1)" = Yes ] && grep -qw apparmor /sys/kernel/security/lsm
tap $? "AppArmor is enabled (aa-enabled; LSMs $(cat /sys/kernel/security/lsm))"

profile devbpf-no-bpf &&
	profile devbpf-bpf "capability bpf" &&
	profile devbpf-bpf-admin "capability bpf" "capability sys_admin" &&
	profile devbpf-perfmon "capability bpf" "capability perfmon" &&
	profile devbpf-trace "capability bpf" "capability perfmon" "capability sys_admin"
tap $? "apparmor_parser loads the test profiles"
diag "$tmp/err"

# --- taking the grant ---------------------------------------------------------
as alice "aa-exec -p devbpf-no-bpf -- bpf-run cat /proc/self/status"
[ "$rc" -eq 125 ] && grep -q "refused by a security module (EPERM)" "$tmp/err"
tap $? "devbpf-no-bpf: bpf-run is refused the grant with EPERM (status $rc)"
diag "$tmp/out" "$tmp/err" | head -5

denied devbpf-no-bpf bpf
tap $? "devbpf-no-bpf: AppArmor records the refusal: capname=\"bpf\""

as alice "aa-exec -p devbpf-bpf -- bpf-run cat /proc/self/status"
[ "$rc" -eq 0 ] && [ "$(bpf_dev_line)" = BpfDev:1 ]
tap $? "devbpf-bpf (capability bpf): cat starts holding the grant"
diag "$tmp/err"

# --- using it: each capability the grant passes for is the profile's -------
as alice "aa-exec -p devbpf-bpf -- bpf-run /usr/sbin/bpftool prog show"
[ "$rc" -ne 0 ] && grep -q "Operation not permitted" "$tmp/err"
tap $? "devbpf-bpf: Debian's bpftool prog show (CAP_SYS_ADMIN's) is refused"
diag "$tmp/err" | head -5

denied devbpf-bpf sys_admin
tap $? "devbpf-bpf: AppArmor records the refused use: capname=\"sys_admin\""

# the yardstick: root, with every capability, in the same profile
aa-exec -p devbpf-bpf -- /usr/sbin/bpftool prog show >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -ne 0 ] && grep -q "Operation not permitted" "$tmp/err"
tap $? "devbpf-bpf: root's bpftool prog show is refused alike"
diag "$tmp/err" | head -5

as alice "aa-exec -p devbpf-bpf-admin -- bpf-run /usr/sbin/bpftool prog show"
[ "$rc" -eq 0 ] && [ -s "$tmp/out" ]
tap $? "devbpf-bpf-admin (bpf, sys_admin): bpftool prog show lists programs"
diag "$tmp/err" | head -5

# --- /dev/bpf-trace: its powers are capabilities to AppArmor too -----------
# A kprobe through perf at perf_event_paranoid 3: Debian's check is
# CAP_SYS_ADMIN's, the kprobe PMU's CAP_PERFMON's.
funclatency="bpf-run --scope trace /usr/sbin/funclatency -d 1 vfs_read"
# A profile of its own: AppArmor does not log a capability twice in a row.
# Its programs load (perfmon); the perf event is refused.
as alice "aa-exec -p devbpf-perfmon -- $funclatency"
[ "$rc" -ne 0 ] && grep -q "Permission denied\|-EACCES\|-13" "$tmp/err"
tap $? "devbpf-perfmon (bpf, perfmon): funclatency through bpf-run --scope trace is refused its kprobe (status $rc)"
diag "$tmp/err" | head -5

denied devbpf-perfmon sys_admin
tap $? "devbpf-perfmon: AppArmor records the refused perf check: capname=\"sys_admin\", Debian's paranoid 3"

as alice "aa-exec -p devbpf-trace -- $funclatency"
[ "$rc" -eq 0 ] && grep -q "Tracing vfs_read" "$tmp/out"
tap $? "devbpf-trace (bpf, perfmon, sys_admin): funclatency runs (status $rc)"
diag "$tmp/err" | head -5

for p in devbpf-no-bpf devbpf-bpf devbpf-bpf-admin devbpf-perfmon devbpf-trace; do
	apparmor_parser -R "$tmp/$p" 2>/dev/null
done
dmesg | grep 'apparmor="DENIED" operation="capable"' | grep 'profile="devbpf-' | diag
