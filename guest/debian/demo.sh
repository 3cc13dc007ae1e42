#!/bin/bash
# The demo, on the Debian guest: alice (in group bpf) takes and gives back
# the grant; bob cannot; ipacct.service runs as deployed, and without its
# SupplementaryGroups=; then through the netacct scope, and outside it;
# then Debian's bpftool through the inventory scope.
# shellcheck source=systemd.sh
. /usr/lib/devbpf/systemd.sh
# Debian's own bpftool: the guest's PATH finds the tree's first, which
# takes the grant of /dev/bpf itself, and alice is in group bpf too.
bpftool=/usr/sbin/bpftool

echo
echo "devbpf: demo, as user alice in group bpf"
su - alice -c /usr/lib/devbpf/demo
echo
echo "devbpf: the same as bob, who is not in group bpf"
su - bob -c /usr/lib/devbpf/demo

echo
echo "devbpf: systemctl start ipacct.service: an unprivileged service counts"
echo "devbpf: its own IP traffic with cgroup_skb programs (User=ipacct,"
echo "devbpf: SupplementaryGroups=bpf); journalctl -u ipacct:"
start_unit ipacct.service 'ipacct: \(egress\|run the service\)'
echo
echo "devbpf: the same service with a drop-in that empties SupplementaryGroups="
without_groups ipacct.service
start_unit ipacct.service 'ipacct: \(egress\|run the service\)'
with_groups ipacct.service

echo
echo "devbpf: the same service through the netacct scope (/dev/bpf-netacct,"
echo "devbpf: SupplementaryGroups=bpf-netacct): a grant limited to cgroup_skb"
echo "devbpf: programs, array and hash maps, its own cgroup, bpf and net_admin"
cat /etc/bpf-dev/scopes.d/netacct.conf
start_unit ipacct-netacct.service 'ipacct: \(egress\|run the service\)'
echo
echo "devbpf: and trying three things outside the scope: a kprobe program, the"
echo "devbpf: root cgroup, root's map by ID"
"$bpftool" map create /sys/fs/bpf/devbpf_demo type array key 4 value 4 entries 1 name devbpf_root
id=$("$bpftool" map show pinned /sys/fs/bpf/devbpf_demo | sed -n 's/^\([0-9]*\):.*/\1/p')
mkdir -p /run/systemd/system/ipacct-netacct.service.d
printf '[Service]\nExecStart=\nExecStart=/usr/lib/devbpf/ipacct --scope netacct --outside %s\n' \
	"$id" >/run/systemd/system/ipacct-netacct.service.d/outside.conf
systemctl daemon-reload
start_unit ipacct-netacct.service 'ipacct: \(outside the scope: BPF_MAP_GET\|cannot\)'
rm -r /run/systemd/system/ipacct-netacct.service.d
systemctl daemon-reload

echo
echo "devbpf: alice through the inventory scope (bpf-run --scope inventory):"
echo "devbpf: Debian's bpftool lists what root lists, reads root's map, and"
echo "devbpf: updates, detaches and test-runs nothing"
/usr/sbin/runqlat 30 1 >/dev/null 2>&1 &
runqlat=$!
sleep 2
link=$("$bpftool" link show | sed -n 's/^\([0-9]*\): .*/\1/p' | head -n 1)
prog=$("$bpftool" link show id "$link" | sed -n 's/.* prog \([0-9]*\).*/\1/p')
head -c 64 /dev/zero >/tmp/devbpf_demo.pkt
chmod 0644 /tmp/devbpf_demo.pkt
for cmd in "link show" "map dump id $id" "map update id $id key 0 0 0 0 value 1 0 0 0" \
	"link detach id $link" "prog run id $prog data_in /tmp/devbpf_demo.pkt"; do
	echo "\$ bpf-run --scope inventory $bpftool $cmd"
	su alice -c "bpf-run --scope inventory $bpftool $cmd" 2>&1 | head -n 8
done
echo "devbpf: root's map and link afterwards:"
"$bpftool" map dump id "$id"
"$bpftool" link show id "$link"
kill "$runqlat" 2>/dev/null
rm -f /sys/fs/bpf/devbpf_demo /tmp/devbpf_demo.pkt
exit 0
