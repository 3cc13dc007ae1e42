#!/bin/sh
# What the udev rule does on a real system: group bpf may read /dev/bpf.
chgrp bpf /dev/bpf && chmod 0440 /dev/bpf &&
	echo "devbpf: /dev/bpf is now $(stat -c '%A %U:%G' /dev/bpf)"
