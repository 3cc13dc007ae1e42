#!/usr/bin/env bash
# Configures and builds the kernel in $BUILD (incrementally: the config is
# only rewritten when it changes), builds the guest programs statically
# and packs the initramfs.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$TREE/.git" ] || die "no work tree at $TREE (run: make tree)"

fragments=("$REPO/config/kernel.config")
[ "$KCONFIG_FLAVOUR" = debug ] && fragments+=("$REPO/config/debug.config")

msg "configuring ($KCONFIG_FLAVOUR) in $BUILD"
run_logged "kconfig-$KCONFIG_FLAVOUR" kconfig_merge "$TREE" "$BUILD" "${fragments[@]}"

msg "building bzImage (log: $LOGS/kernel-$KCONFIG_FLAVOUR.log)"
start=$SECONDS
run_logged "kernel-$KCONFIG_FLAVOUR" kmake "$TREE" "$BUILD" bzImage
msg "kernel built in $((SECONDS - start)) s"
run_logged "headers-$KCONFIG_FLAVOUR" kmake "$TREE" "$BUILD" headers_install

# --- guest programs: built in $GUEST/bin, packed from $GUEST/root --------
out=$GUEST/bin
mkdir -p "$out"

run_logged "selftests-$KCONFIG_FLAVOUR" make -C "$TREE/tools/testing/selftests/bpf_dev" \
	OUTPUT="$out" KHDR_INCLUDES="-isystem $BUILD/usr/include" USERLDFLAGS=-static

tools=$WORK/tools
run_logged tools build_tools "$TREE" "$tools"
cp "$tools/bpftool/bpftool" "$out/"

# The harness's own guest programs (guest/*.c), rebuilt when they, their
# header, libbpf or the kernel headers changed.
for src in "$REPO"/guest/*.c; do
	name=$(basename "$src" .c)
	bin=$out/$name
	if [ -f "$bin" ] && [ "$bin" -nt "$src" ] && [ "$bin" -nt "$REPO/guest/grant.h" ] &&
		[ "$bin" -nt "$tools/libbpf/libbpf.a" ] && [ "$bin" -nt "$BUILD/usr/include/linux/bpf.h" ]; then
		continue
	fi
	run_logged "guest-$name" gcc -static -O2 -Wall -Werror \
		-isystem "$BUILD/usr/include" -I "$TREE/tools/testing/selftests" \
		-I "$TREE/tools/lib" -o "$bin" "$src" "$tools/libbpf/libbpf.a" -lelf -lz
done

root=$GUEST/root
bin=$root/usr/lib/devbpf
rm -rf "$root"
mkdir -p "$bin" "$root/bin" "$root/etc"
cp "$out"/* "$bin/"
cp /bin/busybox "$root/bin/busybox"
cp "$REPO/guest/init" "$root/init"
cp "$REPO"/guest/*.sh "$bin/"
cp "$REPO"/guest/etc/* "$root/etc/"
cp -r "$REPO/deploy" "$bin/deploy"
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
