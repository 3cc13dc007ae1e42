#!/usr/bin/env bash
# Debian packages of the patched kernel, through the kernel's own
# bindeb-pkg, the way an administrator would deploy it.
#   DEB_CONFIG=debian  Debian's config (linux-config-6.12, amd64) with
#                      CONFIG_BPF_DEV=y: a full distribution kernel, hours
#                      on two cores (the default)
#   DEB_CONFIG=test    the small test kernel, already built by make build
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${DEB_CONFIG:-debian}

case $flavour in
test)
	build=$BUILD
	[ -f "$build/.config" ] || die "no test build in $build (run: make build)"
	;;
debian)
	# The same build directory as make check-distro's bzImage
	build=$WORK/build-distro
	run_logged kconfig-deb-debian distro_config "$TREE" "$build"
	;;
*) die "DEB_CONFIG must be 'debian' or 'test', not '$flavour'" ;;
esac

# dpkg-buildpackage leaves the packages next to the build directory.
out=$WORK/deb-$flavour
rm -f "$(dirname "$build")"/linux-*.deb "$(dirname "$build")"/linux-upstream_*
msg "bindeb-pkg ($flavour config) in $build (log: $LOGS/deb-$flavour.log)"
start=$SECONDS
run_logged "deb-$flavour" kmake "$TREE" "$build" bindeb-pkg
msg "bindeb-pkg took $((SECONDS - start)) s"
rm -rf "$out" && mkdir -p "$out"
mv "$(dirname "$build")"/linux-*.deb "$out/"
rm -f "$(dirname "$build")"/linux-upstream_*

image=
for f in "$out"/linux-image-*.deb; do
	case $f in *-dbg_*) ;; *) [ -e "$f" ] && image=$f ;; esac
done
[ -n "$image" ] || die "bindeb-pkg made no linux-image package"
dpkg-deb --contents "$image" | grep -E ' \./boot/vmlinuz-' >&2 ||
	die "$(basename "$image") holds no /boot/vmlinuz"
msg "packages in $out:"
ls -l "$out" >&2

# The administrator's side, beside the kernel packages.
admin=$(build_admin_deb "$out")
msg "admin package $(basename "$admin"):"
dpkg-deb --contents "$admin" >&2
