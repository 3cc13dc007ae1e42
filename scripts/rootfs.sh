#!/usr/bin/env bash
# The Debian 12 guest's root file system: mmdebstrap from apt's own
# mirrors, kept in $WORK/debian as a tarball and as the newc cpio archive
# the kernel unpacks. Rebuilt only when the package list or the options
# below change. The project's own files go into a second archive, made by
# debian.sh, which the kernel unpacks over this one.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# systemd as PID 1, udev, awk for the suites (su comes with util-linux),
# and the judges of the apt_tools suite: Debian's own bpftool and
# libbpf-tools, unmodified, and of the apparmor suite: Debian's
# apparmor_parser and aa-exec. "essential" installs no apt and no
# Priority: required extras; the merged-usr hook keeps usrmerge (and its
# perl) out.
packages=systemd,systemd-sysv,udev,mawk,bpftool,libbpf-tools,apparmor
opts=(
	--variant=essential --include="$packages"
	--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
	# nothing in the guest reads documentation, translations or the
	# hardware database (it has no USB or PCI devices to name)
	--dpkgopt='path-exclude=/usr/share/doc/*'
	--dpkgopt='path-include=/usr/share/doc/*/copyright'
	--dpkgopt='path-exclude=/usr/share/man/*'
	--dpkgopt='path-exclude=/usr/share/info/*'
	--dpkgopt='path-exclude=/usr/share/locale/*'
	--dpkgopt='path-include=/usr/share/locale/locale.alias'
	--dpkgopt='path-exclude=/usr/share/zoneinfo/right/*'
	--dpkgopt='path-exclude=/lib/udev/hwdb.d/*'
)
mirrors=(
	"deb http://deb.debian.org/debian bookworm main"
	"deb http://deb.debian.org/debian bookworm-updates main"
	"deb http://deb.debian.org/debian-security bookworm-security main"
)

dir=$WORK/debian
stamp=$(printf '%s\n' "${opts[@]}" "${mirrors[@]}" | sha256sum | cut -d' ' -f1)
if [ -f "$ROOTFS_CPIO" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$stamp" ]; then
	msg "rootfs: $ROOTFS_CPIO (up to date)"
	exit 0
fi

mkdir -p "$dir"
rm -f "$dir/stamp"
msg "rootfs: mmdebstrap bookworm ($packages) into $dir (log: $LOGS/rootfs.log)"
start=$SECONDS
run_logged rootfs mmdebstrap "${opts[@]}" bookworm "$dir/rootfs.tar" "${mirrors[@]}"
run_logged rootfs-cpio bsdtar -cf "$ROOTFS_CPIO.tmp" --format newc @"$dir/rootfs.tar"
mv "$ROOTFS_CPIO.tmp" "$ROOTFS_CPIO"
printf '%s\n' "$stamp" >"$dir/stamp"
msg "rootfs: $(du -m "$ROOTFS_CPIO" | cut -f1) MiB in $((SECONDS - start)) s"
