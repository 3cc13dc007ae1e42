#!/usr/bin/env bash
# Makes the work tree (tree.sh), configures and builds the kernel in
# $BUILD (incrementally: the config is only rewritten when it changes),
# builds the guest programs statically and packs the two guests'
# initramfs archives: busybox, and Debian. What does not need the kernel
# is done while it builds, beside it: the Debian root file system
# (rootfs.sh), if it must be made, which waits on the network and dpkg
# more than on the CPUs, from the start; and the UAPI headers and the
# guest programs, which need nothing else of the kernel.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$REPO/scripts/rootfs.sh" &
rootfs_pid=$!
"$REPO/scripts/tree.sh"

msg "configuring ($KCONFIG_FLAVOUR) in $BUILD"
if [ "$KCONFIG_FLAVOUR" = distro ]; then
	run_logged "kconfig-$KCONFIG_FLAVOUR" distro_config "$TREE" "$BUILD"
else
	fragments=("$REPO/config/kernel.config")
	[ "$KCONFIG_FLAVOUR" = debug ] && fragments+=("$REPO/config/debug.config")
	run_logged "kconfig-$KCONFIG_FLAVOUR" kconfig_merge "$TREE" "$BUILD" "${fragments[@]}"
fi

msg "building bzImage (log: $LOGS/kernel-$KCONFIG_FLAVOUR.log)"
start=$SECONDS
run_logged "kernel-$KCONFIG_FLAVOUR" kmake "$TREE" "$BUILD" bzImage &
kernel_pid=$!

# --- guest programs: built in $GUEST/bin, packed from $GUEST/root --------
# At a lower priority, in the kernel build's gaps (its links and BTF
# encoding use one CPU). The UAPI headers need no config: they are made
# in a directory of their own, since two makes must not share one.
renice -n 10 -p $$ >/dev/null
run_logged "headers-$KCONFIG_FLAVOUR" kmake "$TREE" "$HEADERS_BUILD" headers_install
out=$GUEST/bin
mkdir -p "$out"

run_logged "selftests-$KCONFIG_FLAVOUR" make -C "$TREE/tools/testing/selftests/bpf_dev" \
	OUTPUT="$out" KHDR_INCLUDES="-isystem $HEADERS_BUILD/usr/include" USERLDFLAGS=-static

tools=$WORK/tools
run_logged tools build_tools "$TREE" "$tools"
cp "$tools/bpftool/bpftool" "$out/"

# The harness's own guest programs (guest/**.c), rebuilt when they, their
# header, libbpf or the kernel headers changed.
for src in "${GUEST_PROGRAMS[@]}"; do
	name=$(basename "$src" .c)
	bin=$out/$name
	if [ -f "$bin" ] && [ "$bin" -nt "$src" ] && [ "$bin" -nt "$REPO/guest/grant.h" ] &&
		[ "$bin" -nt "$tools/libbpf/libbpf.a" ] && [ "$bin" -nt "$HEADERS_BUILD/usr/include/linux/bpf.h" ]; then
		continue
	fi
	run_logged "guest-$name" gcc -static -O2 -Wall -Werror \
		-isystem "$HEADERS_BUILD/usr/include" -I "$REPO/guest" -I "$TREE/tools/testing/selftests" \
		-I "$TREE/tools/lib" -o "$bin" "$src" "$tools/libbpf/libbpf.a" -lelf -lz
done

run_logged bpf-run build_bpf_run "$out/bpf-run" -static
renice -n 0 -p $$ >/dev/null 2>&1 || true
wait "$kernel_pid" || exit 1
msg "kernel built in $((SECONDS - start)) s"

# --- the busybox guest: initramfs.cpio ----------------------------------
root=$GUEST/root
bin=$root/usr/lib/devbpf
rm -rf "$root"
mkdir -p "$bin" "$root/bin" "$root/etc"
cp "$out"/* "$bin/"
cp /bin/busybox "$root/bin/busybox"
cp "$REPO/guest/busybox/init" "$root/init"
cp "${GUEST_SCRIPTS[@]}" "$bin/"
cp "$REPO"/guest/busybox/etc/* "$root/etc/"
chmod 0755 "$root/init" "$bin"/*.sh

cat >"$GUEST/nodes.list" <<'LIST'
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
dir /proc 0555 0 0
dir /sys 0555 0 0
dir /tmp 01777 0 0
LIST
(cd "$BUILD" && run_logged "initramfs-$KCONFIG_FLAVOUR" sh "$TREE/usr/gen_initramfs.sh" \
	-o "$GUEST/initramfs.cpio" -u squash -g squash "$root" "$GUEST/nodes.list")
msg "guest: $GUEST/initramfs.cpio ($(du -k "$GUEST/initramfs.cpio" | cut -f1) KiB)"

# --- the Debian guest: debian.cpio, the root file system from rootfs.sh
# followed by the project's files in the places a package would put them.
# The kernel unpacks both archives in turn. ---------------------------------
wait "$rootfs_pid" || die "the Debian root file system could not be made (see above)"
[ -f "$ROOTFS_CPIO" ] || die "no Debian root file system at $ROOTFS_CPIO (run: make rootfs)"
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
