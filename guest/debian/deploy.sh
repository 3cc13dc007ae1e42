#!/bin/bash
# The deployment on a real Debian 12 system: devbpf-install.service
# installs the administrator's package, devbpf-admin, with dpkg -i on the
# running system; its postinst creates group bpf and has udevd re-apply
# 60-bpf.rules to /dev/bpf. systemd-sysusers creates ipacct's user at boot,
# systemd runs ipacct.service with its User=, SupplementaryGroups= and
# Delegate=, and users log in with the group.
# Run as root in devbpf.service. Prints TAP.
# shellcheck source=systemd.sh
. /usr/lib/devbpf/systemd.sh
# shellcheck source=tap.sh
. /usr/lib/devbpf/tap.sh

rule=/usr/lib/udev/rules.d/60-bpf.rules
state=/run/devbpf
bpftool=/usr/lib/devbpf/bpftool

echo "1..19"
failed=$(systemctl list-units --failed --plain --no-legend)
[ -z "$failed" ]
tap $? "no failed units"
[ -z "$failed" ] || diag <<<"$failed"

# --- dpkg -i devbpf-admin ---------------------------------------------------
diag <"$state/dpkg.log"
[ "$(dpkg-query -W -f '${Status}' devbpf-admin 2>/dev/null)" = "install ok installed" ]
tap $? "dpkg -i: devbpf-admin is installed"
files=$(dpkg -L devbpf-admin)
missing=0
for f in /usr/bin/bpf-run "$rule" /usr/lib/sysusers.d/bpf.conf /usr/share/man/man1/bpf-run.1.gz; do
	grep -qx "$f" <<<"$files" || { echo "# dpkg -L lacks $f"; missing=1; }
done
[ $missing -eq 0 ]
tap $? "dpkg -L devbpf-admin: bpf-run, its manual page, the udev rule, the sysusers.d file"

# --- udev: the rule's GROUP and MODE on the node ---------------------------
# rule_field NODE FIELD: FIELD="..." of the rule for /dev/NODE
rule_field() { sed -n "/KERNEL==\"$1\"/s/.*$2=\"\([^\"]*\)\".*/\1/p" "$rule"; }
mode=$(rule_field bpf MODE)
group=$(rule_field bpf GROUP)
before=$(cat "$state/node-before")
[ "$before" = "0400 root root" ] && grep -qx 'DEVMODE=0400' /sys/class/misc/bpf/uevent
tap $? "before the package: /dev/bpf is the kernel's root:root 0400 (got: $before)"
got=$(stat -c '0%a %U %G' /dev/bpf)
[ "$got" = "$mode root $group" ]
tap $? "postinst: udev gave /dev/bpf root:$group $mode as ${rule##*/} says (got: $got)"
trace="$(rule_field bpf-trace MODE) root $(rule_field bpf-trace GROUP)"
got=$(stat -c '0%a %U %G' /dev/bpf-trace)
[ "$got" = "$trace" ] && [ "$trace" != "$mode root $group" ]
tap $? "postinst: udev gave /dev/bpf-trace $trace, apart from /dev/bpf (got: $got)"
info=$(udevadm info --query=all --name=/dev/bpf)
grep -qx 'E: SUBSYSTEM=misc' <<<"$info" && grep -qx 'E: DEVNAME=/dev/bpf' <<<"$info"
tap $? "udevadm info: /dev/bpf is a misc device udev handled"
unknown=$(journalctl -b -u systemd-udevd -o cat | grep -i "unknown group")
[ -z "$unknown" ]
tap $? "udevd knew group $group when it applied the rule"
[ -z "$unknown" ] || diag <<<"$unknown"

# --- sysusers: group bpf from the package, ipacct at boot -----------------
[ ! -s "$state/group-before" ] && getent group "$group" >/dev/null &&
	grep -q "Creating group '$group'" "$state/dpkg.log"
tap $? "postinst: systemd-sysusers created group $group, which did not exist before"
# By syslog identifier: sysusers exits before journald can tell its unit.
journalctl --sync
sysusers_log=$(journalctl -b -t systemd-sysusers -o cat)
getent passwd ipacct >/dev/null && grep -q "Creating user 'ipacct'" <<<"$sysusers_log"
tap $? "sysusers: user ipacct created at boot from ipacct.conf"
diag <<<"$sysusers_log"

# --- the service, as deployed ----------------------------------------------
out=$(start_unit ipacct.service 'ipacct: \(egress\|run the service\)')
status=$?
diag <<<"$out"
uid=$(id -u ipacct)
gid=$(getent group "$group" | cut -d: -f3)
[ $status -eq 0 ] && grep -q "^ipacct: Uid:[[:space:]]*${uid}[[:space:]]" <<<"$out" &&
	grep -q "^ipacct: Groups:.*\b$gid\b" <<<"$out"
tap $? "systemctl start ipacct.service: runs as User=ipacct with SupplementaryGroups=$group, counts its traffic"
grep -q "^ipacct: my cgroup /sys/fs/cgroup/system.slice/ipacct.service belongs to uid $uid$" <<<"$out"
tap $? "ipacct.service: Delegate=yes hands it its cgroup"
grep -q '^ipacct: CapEff:[[:space:]]*0*$' <<<"$out" && grep -q '^ipacct: NoNewPrivs:[[:space:]]*1$' <<<"$out"
tap $? "ipacct.service: no capabilities, no new privileges"
# CapabilityBoundingSet=CAP_BPF CAP_NET_ADMIN: bits 39 and 12
grep -q '^ipacct: CapBnd:[[:space:]]*0*8000001000$' <<<"$out" &&
	grep -q '^ipacct: the grant lists the system.s BPF maps: Operation not permitted$' <<<"$out"
tap $? "ipacct.service: its bounding set keeps the grant from CAP_SYS_ADMIN's BPF_MAP_GET_NEXT_ID"
journalctl -b -u ipacct.service -o cat | grep -q "^ipacct: egress .* packets"
tap $? "journalctl -u ipacct shows the service's lines"

without_groups ipacct.service
out=$(start_unit ipacct.service 'ipacct: \(egress\|run the service\)')
status=$?
with_groups ipacct.service
diag <<<"$out"
[ $status -ne 0 ] && grep -q "ipacct: cannot use BPF: /dev/bpf" <<<"$out"
tap $? "ipacct.service with a drop-in emptying SupplementaryGroups= fails, naming /dev/bpf"

# --- users ------------------------------------------------------------------
out=$(su - alice -c "id; $bpftool prog list" 2>&1)
status=$?
diag <<<"$out"
[ $status -eq 0 ] && grep -q "groups=.*($group)" <<<"$out"
tap $? "su - alice (in group $group): bpftool prog list works with the grant"
out=$(su - bob -c "id; $bpftool prog list" 2>&1)
status=$?
diag <<<"$out"
[ $status -ne 0 ] && grep -q "Hint: .*/dev/bpf" <<<"$out"
tap $? "su - bob (not in group $group): bpftool prog list fails, hinting at /dev/bpf"
# A bpffs of its own for the pin: systemd mounts /sys/fs/bpf mode 0700.
pins=/run/devbpf-bpffs
mkdir -p "$pins" && mount -t bpf bpf "$pins"
c=$(cursor)
systemd-run --quiet --uid=alice --unit=devbpf-alice --service-type=oneshot \
	"$bpftool" map create "$pins/alice" type lru_hash key 4 value 4 entries 4 name alicemap
out=$(unit_log devbpf-alice.service "$c" '.')
result=$(systemctl show -P Result devbpf-alice.service)
[ -n "$out" ] && diag <<<"$out"
[ "$result" = success ] && "$bpftool" map show pinned "$pins/alice" | grep -q "lru_hash  name alicemap"
tap $? "systemd-run --uid=alice: bpftool creates an LRU hash map (needs CAP_BPF) with the grant"
umount "$pins"
