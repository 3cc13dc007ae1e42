#!/bin/bash
# The two scopes devbpf-admin ships, under the real systemd and udev:
# bpf-scopes.service defines them from /etc/bpf-dev/scopes.d when the
# package is installed, and udev gives their nodes to their groups.
# ipacct-netacct.service counts its own traffic through netacct, and the
# same service is refused what the scope leaves out. Debian's unmodified
# bpftool, through bpf-run --scope inventory, lists what root lists and
# writes nothing. A scope file's powers of tracing (trace) are applied. A
# bad scope file is reported by its line and changes nothing. Run as root
# in devbpf.service. Prints TAP.
# shellcheck source=tap.sh
. /usr/lib/devbpf/tap.sh
# shellcheck source=systemd.sh
. /usr/lib/devbpf/systemd.sh
# shellcheck source=listings.sh
. /usr/lib/devbpf/listings.sh

bpftool=/usr/sbin/bpftool
config=/sys/kernel/config/bpf_dev
pin=/sys/fs/bpf/devbpf_scopes
dropin=/run/systemd/system/ipacct-netacct.service.d
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$dropin" "$pin"; systemctl daemon-reload' EXIT

listings=("prog show" "map show" "btf show" "link show")
echo "1..$((${#listings[@]} + 21))"

# --- the scopes as the package defines them ---------------------------------
systemctl is-active -q bpf-scopes.service && [ -d "$config/netacct" ] &&
	[ -d "$config/inventory" ]
tap $? "bpf-scopes.service defined netacct and inventory from /etc/bpf-dev/scopes.d"
got="$(stat -c '0%a %G' /dev/bpf-netacct) $(stat -c '0%a %G' /dev/bpf-inventory)"
[ "$got" = "0440 bpf-netacct 0440 bpf-inventory" ]
tap $? "udev gave /dev/bpf-netacct and /dev/bpf-inventory to their groups (got: $got)"
got="$(cat "$config/netacct/caps") $(cat "$config/netacct/progs") $(cat "$config/netacct/cgroups")"
[ "$got" = "bpf:net_admin cgroup_skb writable" ]
tap $? "configfs shows netacct as its file says (got: $got)"

# --- netacct: ipacct counts its traffic, and nothing more ----------------------
out=$(start_unit ipacct-netacct.service 'ipacct: \(egress\|run the service\)')
status=$?
diag <<<"$out"
[ $status -eq 0 ] && grep -q "took the BPF grant through /dev/bpf-netacct" <<<"$out" &&
	grep -q "^ipacct: egress .* packets" <<<"$out"
tap $? "ipacct-netacct.service counts its own traffic through the netacct scope"
grep -q '^ipacct: the grant lists the system.s BPF maps: Operation not permitted$' <<<"$out"
tap $? "ipacct-netacct.service: the scope lists no one else's maps (BPF_MAP_GET_NEXT_ID)"

"$bpftool" map create "$pin" type array key 4 value 4 entries 1 name devbpf_root
id=$("$bpftool" map show pinned "$pin" | sed -n 's/^\([0-9]*\):.*/\1/p')
mkdir -p "$dropin"
printf '[Service]\nExecStart=\nExecStart=/usr/lib/devbpf/ipacct --scope netacct --outside %s\n' \
	"$id" >"$dropin/outside.conf"
systemctl daemon-reload
out=$(start_unit ipacct-netacct.service 'ipacct: \(outside the scope: BPF_MAP_GET\|cannot\)')
status=$?
diag <<<"$out"
grep -q "outside the scope: BPF_PROG_LOAD of a kprobe program: Operation not permitted" <<<"$out"
tap $? "ipacct-netacct.service: a kprobe program is refused"
grep -q "outside the scope: BPF_PROG_ATTACH to /sys/fs/cgroup: Operation not permitted" <<<"$out"
tap $? "ipacct-netacct.service: attaching to the root cgroup is refused"
grep -q "outside the scope: BPF_MAP_GET_FD_BY_ID of root's map $id: Operation not permitted" <<<"$out"
tap $? "ipacct-netacct.service: opening root's map $id by ID is refused"
[ $status -eq 0 ]
tap $? "ipacct-netacct.service --outside: each of the three refused with EPERM"
rm -rf "$dropin"
systemctl daemon-reload

# --- inventory: Debian's bpftool lists what root lists ------------------------
"$bpftool" map update pinned "$pin" key 0 0 0 0 value 7 0 0 0
root_links_start
for args in "${listings[@]}"; do
	listing_matches "bpf-run --scope inventory" "$args"
done
root_links_stop
"$bpftool" map dump id "$id" >"$tmp/root1" 2>&1
as alice "bpf-run --scope inventory $bpftool map dump id $id"
[ "$rc" -eq 0 ] && cmp -s "$tmp/root1" "$tmp/out"
tap $? "bpftool map dump id $id: alice through --scope inventory reads root's map"
as alice "bpf-run --scope inventory $bpftool map update id $id key 0 0 0 0 value 9 0 0 0"
diag "$tmp/err"
[ "$rc" -ne 0 ] && "$bpftool" map lookup id "$id" key 0 0 0 0 | grep -q "value: 07 00 00 00"
tap $? "bpftool map update id $id: refused through --scope inventory, the value stays 7"
# runqlat loads and attaches programs, which root's grant does (apt_tools)
as alice "bpf-run --scope inventory /usr/sbin/runqlat 1 1"
diag "$tmp/err"
[ "$rc" -ne 0 ] && grep -q "Operation not permitted" "$tmp/err"
tap $? "runqlat: refused through --scope inventory, which loads nothing (status $rc)"

# --- inventory, with the commands that change and run objects -----------------
# Even a scope that has them changes and runs only what it made itself:
# root's runqlat link and systemd's programs stay as they are.
mkdir "$tmp/wide.d"
{
	grep -v '^\(cmds\|cgroups\|attachs\) =' /etc/bpf-dev/scopes.d/inventory.conf
	echo "cmds = $(cat "$config/inventory/cmds"):link_detach:prog_test_run:prog_detach"
	echo "attachs = any"
	echo "cgroups = any"
} >"$tmp/wide.d/inventory.conf"
BPF_SCOPES_DIR=$tmp/wide.d bpf-scopes 2>&1 | diag
grep -q 'link_detach' "$config/inventory/cmds" &&
	[ "$(cat "$config/inventory/cgroups")" = any ]
tap $? "inventory, widened for this test: link_detach, prog_test_run, prog_detach, any attach type and cgroup"
root_links_start
link=$("$bpftool" link show | sed -n 's/^\([0-9]*\): .*/\1/p' | head -n 1)
as alice "bpf-run --scope inventory $bpftool link detach id $link"
diag "$tmp/err"
[ "$rc" -ne 0 ] && grep -q "Operation not permitted" "$tmp/err" &&
	"$bpftool" link show id "$link" >/dev/null 2>&1
tap $? "bpftool link detach id $link: refused through --scope inventory; root's link stays"
prog=$("$bpftool" link show id "$link" | sed -n 's/.* prog \([0-9]*\).*/\1/p')
head -c 64 /dev/zero >"$tmp/pkt"
chmod a+rx "$tmp"
as alice "bpf-run --scope inventory $bpftool prog run id $prog data_in $tmp/pkt repeat 100"
diag "$tmp/err"
[ "$rc" -ne 0 ] && grep -q "Operation not permitted" "$tmp/err"
tap $? "bpftool prog run id $prog (root's): refused through --scope inventory"
root_links_stop
# a program that systemd attached to a unit's cgroup
"$bpftool" cgroup tree >"$tmp/tree" 2>&1
read -r cgroup type prog < <(awk '/^\// { path = $1 }
	$1 ~ /^[0-9]+$/ && path { print path, $2, $1; exit }' "$tmp/tree")
if [ -n "$prog" ]; then
	as alice "bpf-run --scope inventory $bpftool cgroup detach $cgroup $type id $prog"
	diag "$tmp/err"
	# bpftool names no errno here: the program must still be there
	[ "$rc" -ne 0 ] && "$bpftool" cgroup show "$cgroup" | grep -q "^$prog "
	tap $? "bpftool cgroup detach $cgroup $type id $prog: systemd's program stays"
else
	diag "$tmp/tree"
	tap 1 "a program that systemd attached to a cgroup, to try to detach"
fi
bpf-scopes 2>&1 | diag
[ "$(cat "$config/inventory/cgroups")" = writable ]
tap $? "inventory restored from /etc/bpf-dev/scopes.d"

as bob "bpf-run --scope inventory $bpftool prog show"
diag "$tmp/err"
[ "$rc" -ne 0 ] && grep -q "bpf-inventory" "$tmp/err"
tap $? "bob, outside group bpf-inventory: bpf-run --scope inventory names the node it cannot open"

# --- a scope with powers of tracing -------------------------------------------
# A profiler's scope, as dev_bpf.rst gives it: bpf-scopes writes its trace
# line, and configfs reads it back as the kernel holds it.
mkdir "$tmp/profile.d"
cat >"$tmp/profile.d/devbpf-profile.conf" <<'EOF'
caps = bpf:perfmon
cmds = map_create:map_lookup_elem:map_update_elem:map_delete_elem:map_get_next_key:map_freeze:prog_load:btf_load:link_create:obj_get_info_by_fd
maps = stack_trace:hash:array
progs = perf_event
attachs = any
trace = ksyms:software:cpu_wide
EOF
BPF_SCOPES_DIR=$tmp/profile.d bpf-scopes 2>&1 | diag
got=$(cat "$config/devbpf-profile/trace" "$config/devbpf-profile/enable" 2>&1 | paste -sd' ')
[ "$got" = "software:cpu_wide:ksyms 1" ] && [ -c /dev/bpf-devbpf-profile ]
tap $? "bpf-scopes: a scope's trace line is applied, and read back as the kernel holds it (got: $got)"
rmdir "$config/devbpf-profile" 2>/dev/null

# --- bad configuration --------------------------------------------------------
mkdir "$tmp/scopes.d"
printf '# a typo on line 3\ncaps = bpf\nprogs = cgroup_skbb\n' >"$tmp/scopes.d/broken.conf"
sed 's/^caps = .*/caps = bpf:no_such_cap/' /etc/bpf-dev/scopes.d/netacct.conf \
	>"$tmp/scopes.d/netacct.conf"
BPF_SCOPES_DIR=$tmp/scopes.d bpf-scopes 2>"$tmp/err"
status=$?
diag "$tmp/err"
[ $status -eq 1 ] && grep -q "broken.conf:3: the kernel refuses progs = cgroup_skbb" "$tmp/err" &&
	[ ! -e "$config/broken" ] && [ ! -e /dev/bpf-broken ]
tap $? "bpf-scopes: a bad line is named by file and line, and its scope is not made"
line=$(grep -n '^caps' /etc/bpf-dev/scopes.d/netacct.conf | cut -d: -f1)
grep -q "netacct.conf:$line: the kernel refuses caps = bpf:no_such_cap" "$tmp/err" &&
	[ "$(cat "$config/netacct/caps")" = "bpf:net_admin" ]
tap $? "bpf-scopes: a bad line leaves the existing netacct scope as it was"
