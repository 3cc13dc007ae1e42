#!/bin/sh
# make bench, in the guest: what the host's table needs.
echo "FOOTPRINT kernel $(uname -r)"
echo "FOOTPRINT task_struct $(cat /sys/kernel/slab/task_struct/object_size)"
[ "$1" = footprint ] && exit 0
bench
