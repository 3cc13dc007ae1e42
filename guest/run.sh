#!/bin/sh
# The demo: alice (uid 1000, in group bpf) takes and gives back the grant.
apply-dev-rule.sh
echo
echo "devbpf: demo, as user alice in group bpf"
su alice -c demo
echo
echo "devbpf: the same as bob, who is not in group bpf"
su bob -c demo

echo
echo "devbpf: ipacct.service: an unprivileged service counts its own IP"
echo "devbpf: traffic with cgroup_skb programs (User=ipacct, SupplementaryGroups=bpf)"
run-unit.sh /usr/lib/devbpf/deploy/ipacct.service
echo
echo "devbpf: the same service without SupplementaryGroups=bpf"
run-unit.sh /usr/lib/devbpf/deploy/ipacct.service --without-supplementary-groups
