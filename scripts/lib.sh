# shellcheck shell=bash disable=SC2034  # the variables are for the scripts that source this
# Shared by the scripts in this folder: where things live, and how to fail.
#
#   DEVBPF_WORK   work directory, outside the repository
#                 (default: ~/.cache/devbpf)
#   DEVBPF_KCONFIG  kernel config flavour: "test" (config/kernel.config),
#                 "debug" (adds config/debug.config) or "distro" (Debian's
#                 own config); default "test"

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${DEVBPF_WORK:-$HOME/.cache/devbpf}
KCONFIG_FLAVOUR=${DEVBPF_KCONFIG:-test}
TREE=$WORK/tree
BUILD=$WORK/build-$KCONFIG_FLAVOUR
# the UAPI headers of the tree, for the guest programs and the selftests
HEADERS_BUILD=$WORK/headers
GUEST=$WORK/guest-$KCONFIG_FLAVOUR
LOGS=$WORK/logs
ROOTFS_CPIO=$WORK/debian/rootfs.cpio
SOURCE_PKG=linux-source-6.12
SOURCE_TARBALL=/usr/src/linux-source-6.12.tar.xz
export CCACHE_DIR=${CCACHE_DIR:-$WORK/ccache}
# ccache's depend mode: a miss compiles once and takes the headers from the
# compiler's dependency file, where the default runs the preprocessor
# first, a fifth of a cold kernel build (every object of a first build is
# a miss)
export CCACHE_DEPEND=${CCACHE_DEPEND:-true}
# The kernels built here share objects where their sources are equal (the
# unpatched kernel differs from the patched one in a few dozen files):
# paths under $WORK count relative to the build directory, each source
# tree is its build directory's sibling "../tree", and the working
# directory and the macro prefix map, which name the absolute paths, are
# left out of the hash. Only the debug information's directory differs.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$WORK}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
export CCACHE_IGNOREOPTIONS=${CCACHE_IGNOREOPTIONS:--fmacro-prefix-map=*}
# The guests' shell scripts and C programs, wherever they sit under guest/
# (the guest itself has them all in /usr/lib/devbpf). The busybox guest's
# PID 1 is guest/busybox/init.
GUEST_SCRIPTS=("$REPO"/guest/*.sh "$REPO"/guest/*/*.sh)
GUEST_PROGRAMS=("$REPO"/guest/*.c "$REPO"/guest/*/*.c)

case $KCONFIG_FLAVOUR in
test | debug | distro) ;;
*)
	echo "devbpf: DEVBPF_KCONFIG must be 'test', 'debug' or 'distro', not '$KCONFIG_FLAVOUR'" >&2
	exit 2
	;;
esac

msg() {
	printf 'devbpf: %s\n' "$*" >&2
}

die() {
	printf 'devbpf: error: %s\n' "$*" >&2
	exit 1
}

# The Debian version of the kernel source package apt installed.
source_version() {
	dpkg-query -W -f='${Version}' "$SOURCE_PKG" 2>/dev/null ||
		die "$SOURCE_PKG is not installed (run: make setup)"
}

# Patch files of the series, in order, as paths.
series_patches() {
	local p
	while read -r p; do
		case $p in '' | '#'*) continue ;; esac
		[ -f "$REPO/patches/$p" ] || die "patches/series names $p, which does not exist"
		printf '%s\n' "$REPO/patches/$p"
	done <"$REPO/patches/series"
}

# A fingerprint of the series: changes whenever a patch or the order does.
series_stamp() {
	{
		cat "$REPO/patches/series"
		series_patches | xargs cat
	} | sha256sum | cut -d' ' -f1
}

# Runs "$@" with its output in $LOGS/<name>.log; on failure shows the
# lines that matter (or the tail) and exits.
run_logged() {
	local name=$1 log
	shift
	mkdir -p "$LOGS"
	log=$LOGS/$name.log
	# In the background, so that errexit still applies inside functions.
	"$@" >"$log" 2>&1 &
	if ! wait $!; then
		msg "$name failed; the errors (full log: $log):"
		if grep -qE 'error:|Error [0-9]|undefined reference' "$log"; then
			grep -E -B2 -A6 'error:|undefined reference' "$log" | head -n 60 >&2
			grep -E 'Error [0-9]' "$log" | head -n 5 >&2
		else
			tail -n 40 "$log" >&2
		fi
		exit 1
	fi
}

# kconfig_merge SRC BUILD FRAGMENT...: tinyconfig plus the fragments, in
# BUILD. The old timestamp is kept when nothing changed, so that make has
# nothing to do; every CONFIG_ line of the fragments must have stuck.
kconfig_merge() {
	local src=$1 build=$2 cfg=$2/.config f line
	shift 2
	mkdir -p "$build"
	[ -f "$cfg" ] && cp -p "$cfg" "$cfg.devbpf-prev"
	make -C "$src" O="$build" tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$cfg" "$@"
	make -C "$src" O="$build" olddefconfig
	if [ -f "$cfg.devbpf-prev" ] && cmp -s "$cfg" "$cfg.devbpf-prev"; then
		touch -r "$cfg.devbpf-prev" "$cfg"
	fi
	rm -f "$cfg.devbpf-prev"
	for f in "$@"; do
		while read -r line; do
			case $line in CONFIG_*) ;; *) continue ;; esac
			grep -qxF "$line" "$cfg" ||
				die "$line (from ${f##*/}) is not in the kernel config: a missing dependency, or the series is not applied"
		done <"$f"
	done
}

# distro_config SRC BUILD: Debian's own config (linux-config-6.12, amd64)
# with CONFIG_BPF_DEV=y, in BUILD. Debian's signing keys are not in the
# source package: the build goes without them. The old timestamp is kept
# when nothing changed.
DISTRO_CONFIG=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
distro_config() {
	local src=$1 build=$2
	mkdir -p "$build"
	[ -f "$DISTRO_CONFIG" ] || die "$DISTRO_CONFIG is missing (package linux-config-6.12)"
	xzcat "$DISTRO_CONFIG" >"$build/.config.distro"
	"$src/scripts/config" --file "$build/.config.distro" \
		--enable CONFIGFS_FS --enable BPF_DEV \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS ""
	if ! cmp -s "$build/.config.distro" "$build/.config.distro.prev"; then
		cp "$build/.config.distro" "$build/.config"
		make -C "$src" O="$build" olddefconfig
		cp "$build/.config.distro" "$build/.config.distro.prev"
	fi
	grep -qx CONFIG_BPF_DEV=y "$build/.config" ||
		die "CONFIG_BPF_DEV=y did not stick in $build/.config"
}

# kmake SRC BUILD TARGET...: make in kernel tree SRC with output in BUILD,
# as every script here builds kernels: ccache, all cores, no "+" suffix.
kmake() {
	local src=$1 build=$2
	shift 2
	make -C "$src" O="$build" LOCALVERSION= -j"$(nproc)" CC="ccache gcc" "$@"
}

# build_base_kernel: the unpatched kernel, for comparisons (make bench,
# make check-upstream's kselftests): tag base of $TREE checked out in
# $BASE_SRC, built in $BASE_BUILD with config/kernel.config less
# CONFIG_BPF_DEV. Incremental, like build.sh; the tree itself is not touched
# but for its list of work trees. The two sit as $TREE and $BUILD do, so
# that ccache finds what the test kernel compiled.
BASE_SRC=$WORK/base/tree
BASE_BUILD=$WORK/base/build-test
BASE_BZIMAGE=$BASE_BUILD/arch/x86/boot/bzImage
build_base_kernel() {
	if ! git -C "$BASE_SRC" rev-parse -q --verify HEAD >/dev/null 2>&1 ||
		[ "$(git -C "$BASE_SRC" rev-parse HEAD)" != "$(git -C "$TREE" rev-parse base)" ]; then
		rm -rf "$BASE_SRC"
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$BASE_SRC" base
	fi
	mkdir -p "$WORK/base-config"
	grep -v '^CONFIG_BPF_DEV=' "$REPO/config/kernel.config" >"$WORK/base-config/kernel.config"
	msg "building the unpatched kernel in $BASE_BUILD (log: $LOGS/kernel-base.log)"
	run_logged kconfig-base kconfig_merge "$BASE_SRC" "$BASE_BUILD" "$WORK/base-config/kernel.config"
	run_logged kernel-base kmake "$BASE_SRC" "$BASE_BUILD" bzImage
}

# build_tools SRC OUT: libbpf and bpftool of kernel tree SRC in OUT/libbpf
# and OUT/bpftool; bpftool static and without clang (no skeletons), which
# is all it needs for maps, programs and probing.
build_tools() {
	local src=$1 out=$2
	mkdir -p "$out/libbpf" "$out/bpftool"
	# bpftool makes the static libbpf.a it links, in $out/libbpf/, where
	# the guest programs take it from too: libbpf compiles once, not
	# three times (bpftool's own copy, and libbpf's static and shared)
	make -C "$src/tools/bpf/bpftool" OUTPUT="$out/bpftool/" LIBBPF_OUTPUT="$out/libbpf/" \
		EXTRA_LDFLAGS=-static feature-clang-bpf-co-re=0 feature-llvm=0 feature-libbfd=0
}

# build_bpf_run OUT [GCC_ARG...]: the launcher, deploy/bpf-run.c, against
# the work tree's UAPI header for /dev/bpf.
build_bpf_run() {
	local out=$1 inc=$WORK/bpf-run-include
	shift
	install -D -m 0644 "$TREE/include/uapi/linux/bpf_dev.h" "$inc/linux/bpf_dev.h"
	gcc -O2 -Wall -Wextra -Werror "$@" -I "$inc" -o "$out" "$REPO/deploy/bpf-run.c"
}

# build_admin_deb OUTDIR: the administrator's package, devbpf-admin, from
# deploy/: the udev rule, the sysusers.d file, bpf-run, the scopes of
# scopes.d with bpf-scopes and its unit, and the manual pages. Prints the
# package's path.
ADMIN_DEB_VERSION=1.0
build_admin_deb() {
	local outdir=$1 pkg=devbpf-admin stage deb
	stage=$WORK/admin-deb/$pkg
	deb=$outdir/${pkg}_${ADMIN_DEB_VERSION}_amd64.deb
	rm -rf "$stage"
	install -d "$stage/DEBIAN" "$stage/usr/bin" "$stage/usr/share/man/man1" \
		"$stage/usr/share/man/man8" \
		"$stage/usr/share/doc/$pkg"
	build_bpf_run "$stage/usr/bin/bpf-run"
	install -D -m 0644 "$REPO/deploy/60-bpf.rules" "$stage/usr/lib/udev/rules.d/60-bpf.rules"
	install -D -m 0644 "$REPO/deploy/bpf.sysusers" "$stage/usr/lib/sysusers.d/bpf.conf"
	install -D -m 0755 "$REPO/deploy/bpf-scopes" "$stage/usr/sbin/bpf-scopes"
	install -D -m 0644 "$REPO/deploy/bpf-scopes.service" \
		"$stage/usr/lib/systemd/system/bpf-scopes.service"
	install -d "$stage/etc/bpf-dev/scopes.d"
	install -m 0644 "$REPO"/deploy/scopes/*.conf "$stage/etc/bpf-dev/scopes.d/"
	gzip -9n <"$REPO/deploy/bpf-scopes.8" >"$stage/usr/share/man/man8/bpf-scopes.8.gz"
	gzip -9n <"$REPO/deploy/bpf-run.1" >"$stage/usr/share/man/man1/bpf-run.1.gz"
	install -m 0644 "$REPO/deploy/debian/copyright" "$stage/usr/share/doc/$pkg/copyright"
	install -m 0755 "$REPO/deploy/debian/postinst" "$REPO/deploy/debian/postrm" "$stage/DEBIAN/"
	install -m 0644 "$REPO/deploy/debian/conffiles" "$stage/DEBIAN/"
	sed -e "s/@VERSION@/$ADMIN_DEB_VERSION/" \
		-e "s/@SIZE@/$(du -ks --exclude=DEBIAN "$stage" | cut -f1)/" \
		-e "s/@MAINTAINER@/$(git -C "$REPO" log -1 --format='%an <%ae>')/" \
		"$REPO/deploy/debian/control" >"$stage/DEBIAN/control"
	mkdir -p "$outdir"
	dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >&2
	printf '%s\n' "$deb"
}
