#!/usr/bin/env bash
# setup.sh [GROUP...]: installs the Debian packages that the harness needs,
# if any is missing: those of make build and make check, and those of the
# named groups, which only some targets need:
#   upstream  check-upstream and check-bisect: clang for upstream's BPF
#             selftests, and what the tree's kselftests link
#   lint      make lint
#   deb       make deb and check-distro: bindeb-pkg, Debian's config
set -euo pipefail
. "$(dirname "$0")/lib.sh"

packages=(
	linux-source-6.12	# the tree
	build-essential bc bison flex cpio kmod	# building a kernel
	libelf-dev libssl-dev zlib1g-dev libzstd-dev dwarves	# kernel (pahole: BTF) and bpftool
	ccache rsync xz-utils	# builds
	qemu-system-x86 busybox-static	# the busybox guest
	mmdebstrap libarchive-tools	# the Debian guest
)
for group in "$@"; do
	case $group in
	upstream) packages+=(clang-19 llvm-19 lld-19 libcap-dev libcap-ng-dev bash-static) ;;
	lint) packages+=(shellcheck python3-docutils python3-ply python3-git) ;;
	deb) packages+=(linux-config-6.12 dpkg-dev debhelper) ;;
	*) die "setup.sh: no package group '$group' (upstream, lint, deb)" ;;
	esac
done

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

[ "$(id -u)" -eq 0 ] ||
	die "missing packages: ${missing[*]} (install them as root, or run this as root)"
msg "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || die "apt-get update failed"
if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >"${TMPDIR:-/tmp}/devbpf-apt.log" 2>&1; then
	tail -n 20 "${TMPDIR:-/tmp}/devbpf-apt.log" >&2
	die "apt-get could not install: ${missing[*]}"
fi
