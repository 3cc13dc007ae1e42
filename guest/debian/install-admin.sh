#!/bin/bash
# Run by devbpf-install.service in the Debian guest: records /dev/bpf and
# group bpf as the boot left them, installs devbpf-admin with dpkg -i
# (its postinst creates the group and re-applies udev's rules to the
# node), then adds the test users alice (in group bpf) and bob. What it
# saw goes to /run/devbpf for deploy.sh.
set -euo pipefail

lib=/usr/lib/devbpf
state=/run/devbpf
mkdir -p "$state"
stat -c '0%a %U %G' /dev/bpf >"$state/node-before"
getent group bpf >"$state/group-before" || true
dpkg -i "$lib"/devbpf-admin_*.deb >"$state/dpkg.log" 2>&1 ||
	{ cat "$state/dpkg.log"; exit 1; }
systemd-sysusers "$lib/test-users.sysusers"
systemd-tmpfiles --create "$lib/test-users.tmpfiles"
