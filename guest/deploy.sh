#!/bin/sh
# The administrator's files in deploy/, checked against what the guest
# did with them, and the service they describe run as written. TAP.
d=/usr/lib/devbpf/deploy
n=0
tap() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fi
}

echo "1..4"
rule_mode=$(sed -n 's/.*MODE="\([0-7]*\)".*/\1/p' "$d/60-bpf.rules")
rule_group=$(sed -n 's/.*GROUP="\([^"]*\)".*/\1/p' "$d/60-bpf.rules")
[ "$(stat -c '0%a %U %G' /dev/bpf)" = "$rule_mode root $rule_group" ]
tap $? "udev rule: /dev/bpf is root:$rule_group $rule_mode, as 60-bpf.rules says"

sys_group=$(awk '$1 == "g" { print $2 }' "$d/bpf.sysusers")
[ "$sys_group" = "$rule_group" ] && grep -q "^$sys_group:" /etc/group
tap $? "sysusers.d: creates group '$sys_group', the rule's group"

out=$(run-unit.sh "$d/ipacct.service")
status=$?
echo "$out" | sed 's/^/# /'
tap $status "ipacct.service (User=ipacct, SupplementaryGroups=bpf) counts its own traffic"

out=$(run-unit.sh "$d/ipacct.service" --without-supplementary-groups)
status=$?
echo "$out" | sed 's/^/# /'
[ $status -ne 0 ] && echo "$out" | grep -q /dev/bpf
tap $? "ipacct.service without SupplementaryGroups= fails, naming /dev/bpf"
