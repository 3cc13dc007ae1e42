#!/bin/bash
# Debian's own BPF tools, unmodified, judge the grant: apt's bpftool 7.1
# and libbpf-tools 0.26 link libbpf 1.1 statically and know nothing of
# /dev/bpf. Each runs as root, as alice (group bpf) through bpf-run, as
# alice without it, and as bob. Run as root in devbpf.service, after
# devbpf-admin is installed. Prints TAP.
# shellcheck source=tap.sh
. /usr/lib/devbpf/tap.sh
# shellcheck source=listings.sh
. /usr/lib/devbpf/listings.sh

bpftool=/usr/sbin/bpftool
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The bpftool listings. What they list: systemd's cgroup programs, the
# kernel's BTF, and the programs, maps and tp_btf links of a runqlat that
# root runs meanwhile.
listings=("prog show" "map show" "btf show" "link show" "cgroup tree")
# The libbpf-tools that attach through bpf() alone: tp_btf and raw_tp
# (runqlat, softirqs), fentry (vfsstat); each prints one interval of a
# second ("1 1").
bpf_tools=(runqlat softirqs vfsstat)

echo "1..$((${#listings[@]} + 2 * ${#bpf_tools[@]} + 5))"

# --- bpftool: the member's listing is root's ---------------------------------
root_links_start
for args in "${listings[@]}"; do
	listing_matches bpf-run "$args"
done
root_links_stop

as alice "$bpftool prog show"
[ "$rc" -ne 0 ] && grep -q "Operation not permitted" "$tmp/err"
tap $? "bpftool prog show: alice without bpf-run gets EPERM"
diag "$tmp/err"

# --- libbpf-tools that use only bpf() ---------------------------------------
# Each prints a header, then figures. An idle guest may see no softirq in
# a second (softirqs printed only its header in 3 of 5 runs one day, and
# for root three times in a row another), so processes come and go
# meanwhile and datagrams cross the loopback, whose receive runs as a
# NET_RX softirq; a run without figures is tried again, up to three
# times: the grant decides whether the tool loads at all, which the
# cases without bpf-run check.
results() { [ "$rc" -eq 0 ] && tail -n +2 "$tmp/out" | grep -q '[0-9]'; }
# as USER CMD, again until it prints figures; 0 if it did.
measure() {
	for _ in 1 2 3; do
		as "$1" "$2"
		results && return 0
	done
	return 1
}
while :; do /bin/true; echo >/dev/udp/127.0.0.1/9; done 2>/dev/null &
churn=$!
for name in "${bpf_tools[@]}"; do
	tool=/usr/sbin/$name
	measure root "$tool 1 1"
	root=$?
	[ $root -eq 0 ] || { diag "$tmp/out"; diag "$tmp/err"; }
	[ $root -eq 0 ] && measure alice "bpf-run $tool 1 1"
	tap $? "$name: root and alice through bpf-run print results"
	{ diag "$tmp/out"; diag "$tmp/err"; } | head -20

	as alice "$tool 1 1"
	[ "$rc" -ne 0 ] && grep -q "Operation not permitted\|-EPERM\|: -1$" "$tmp/err"
	tap $? "$name: alice without bpf-run fails with EPERM (status $rc)"
	diag "$tmp/err" | head -5
done
kill $churn
wait $churn 2>/dev/null

# --- perf events: /dev/bpf-trace, not /dev/bpf ----------------------------------
# funclatency attaches a kprobe through perf_event_open(), which the grant
# of /dev/bpf does not open: perf is governed by CAP_PERFMON and
# perf_event_paranoid (Debian's 3 here). The grant of /dev/bpf-trace does.
# (libbpf_tools, make check-tools, runs every tool so.)
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
as alice "bpf-run /usr/sbin/funclatency -d 1 vfs_read"
[ "$rc" -ne 0 ] && grep -qi "kprobe\|perf" "$tmp/err" && grep -q "Permission denied\|-EACCES\|-13" "$tmp/err"
tap $? "funclatency (a kprobe through perf): refused to alice through bpf-run, at perf_event_paranoid $paranoid (status $rc)"
diag "$tmp/err" | head -8
as alice "bpf-run --scope trace /usr/sbin/funclatency -d 1 vfs_read"
[ "$rc" -eq 0 ] && grep -q "Tracing vfs_read" "$tmp/out" && ! grep -qi "fail\|denied" "$tmp/err"
tap $? "funclatency: runs for alice through bpf-run --scope trace (status $rc)"
{ diag "$tmp/out"; diag "$tmp/err"; } | head -12
as bob "bpf-run --scope trace /usr/sbin/funclatency -d 1 vfs_read"
[ "$rc" -eq 125 ] && grep -q "group 'bpf-trace'" "$tmp/err"
tap $? "bob: bpf-run --scope trace exits 125, naming group bpf-trace"
diag "$tmp/err"

as bob "bpf-run $bpftool prog show"
[ "$rc" -eq 125 ] && grep -q "group 'bpf'" "$tmp/err"
tap $? "bob (not in group bpf): bpf-run bpftool exits 125, naming group bpf"
diag "$tmp/err"
