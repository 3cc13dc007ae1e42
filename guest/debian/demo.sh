#!/bin/bash
# The demo, on the Debian guest: alice (in group bpf) takes and gives back
# the grant; bob cannot; ipacct.service runs as deployed, and without its
# SupplementaryGroups=.
# shellcheck source=systemd.sh
. /usr/lib/devbpf/systemd.sh

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
exit 0
