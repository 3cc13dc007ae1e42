#!/bin/sh
# make bench, in the guest: what the host's table needs. "base" on the
# unpatched kernel: only what it can be compared on there.
echo "FOOTPRINT kernel $(uname -r)"
echo "FOOTPRINT task_struct $(cat /sys/kernel/slab/task_struct/object_size)"
# root, before any task of this boot has asked for the grant
bench root | sed 's/^BENCH /UNUSED /'
[ "$1" = base ] && exit 0
# the four identities while no scope exists, then with one
bench
bench root grant scope | sed 's/^BENCH /SCOPED /'
