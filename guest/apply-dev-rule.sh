#!/bin/sh
# Does what deploy/60-bpf.rules makes udev do on a real system (the guest
# has no udev): give /dev/bpf the rule's GROUP and MODE.
rule=/usr/lib/devbpf/deploy/60-bpf.rules
group=$(sed -n 's/.*GROUP="\([^"]*\)".*/\1/p' "$rule")
mode=$(sed -n 's/.*MODE="\([0-7]*\)".*/\1/p' "$rule")
chgrp "$group" /dev/bpf && chmod "$mode" /dev/bpf &&
	echo "devbpf: applied $(basename "$rule"): /dev/bpf is now $(stat -c '%A %U:%G' /dev/bpf)"
