#!/usr/bin/env bash
# Makes the work tree (tree.sh), configures and builds the kernel in
# $BUILD (incrementally: the config is only rewritten when it changes),
# builds the guest programs statically and packs the busybox guest's
# initramfs (debian.sh packs the Debian guest's). What does not need the
# kernel is done while it builds, beside it: the UAPI headers and the
# guest programs, which need nothing else of the kernel.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

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
