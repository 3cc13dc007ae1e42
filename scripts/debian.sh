#!/usr/bin/env bash
# Packs the Debian guest's initramfs, $GUEST/debian.cpio, from what
# build.sh built: the root file system of rootfs.sh (made first if it must
# be), then the project's files in the places a package would put them.
# The kernel unpacks both archives in turn.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$GUEST/bin
[ -d "$out" ] || die "no guest programs in $out (run: make build)"
"$REPO/scripts/rootfs.sh"
stage=$GUEST/debian-overlay
rm -rf "$stage"
lib=$stage/usr/lib/devbpf
install -d "$lib"
cp "$out"/* "${GUEST_SCRIPTS[@]}" "$lib/"
# bpf-run comes from the administrator's package, which the guest installs
# with dpkg -i at boot (devbpf-install.service): the package's files are
# not in the image before that.
rm "$lib/bpf-run"
build_admin_deb "$lib" >/dev/null
install -D -m 0644 "$REPO/deploy/ipacct.sysusers" "$stage/usr/lib/sysusers.d/ipacct.conf"
install -D -m 0644 "$REPO/deploy/ipacct.service" "$stage/etc/systemd/system/ipacct.service"
install -D -m 0644 "$REPO/deploy/ipacct-netacct.service" \
	"$stage/etc/systemd/system/ipacct-netacct.service"
# the test users, the units that install the package and run main.sh
d=$REPO/guest/debian
install -m 0644 "$d/test-users.sysusers" "$d/test-users.tmpfiles" "$lib/"
install -m 0755 "$d/install-admin.sh" "$lib/"
install -m 0644 "$d/devbpf.target" "$d/devbpf.service" "$d/devbpf-install.service" \
	"$stage/etc/systemd/system/"
chmod 0755 "$lib"/*.sh
echo devbpf >"$stage/etc/hostname"
# perf_event_paranoid as Debian's kernels set it (their config has
# CONFIG_SECURITY_PERF_EVENTS_RESTRICT; the test config does not)
install -d "$stage/etc/sysctl.d"
echo "kernel.perf_event_paranoid = 3" >"$stage/etc/sysctl.d/60-perf-paranoid.conf"
# A fixed machine ID: without one, every boot would be a first boot.
echo 0d3b5f0e6c1a4e2b9f7a8c6d5e4f3a2b >"$stage/etc/machine-id"
# The kernel runs /init of an initramfs.
ln -s /sbin/init "$stage/init"
# The kernel applies an archive's directory modes to directories that exist.
find "$stage" -type d -exec chmod 0755 {} +
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) \
	>"$GUEST/debian-overlay.cpio"
cat "$ROOTFS_CPIO" "$GUEST/debian-overlay.cpio" >"$GUEST/debian.cpio"
msg "guest: $GUEST/debian.cpio ($(du -m "$GUEST/debian.cpio" | cut -f1) MiB)"
