#!/usr/bin/env bash
# Installs the Debian packages the harness needs, if any is missing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

packages=(
	linux-source-6.12 linux-config-6.12	# the tree, and Debian's config
	build-essential bc bison flex cpio kmod	# building a kernel
	libelf-dev libssl-dev zlib1g-dev libzstd-dev dwarves	# kernel (pahole: BTF) and bpftool
	ccache rsync xz-utils dpkg-dev debhelper	# builds, bindeb-pkg
	qemu-system-x86 busybox-static	# the busybox guest
	mmdebstrap libarchive-tools	# the Debian guest
	clang-19 llvm-19 lld-19	# upstream's BPF selftests (make check-upstream)
	libcap-dev libcap-ng-dev bash-static	# kselftests (check-upstream): static libcap, bash for exec's scripts
	shellcheck python3-docutils python3-ply python3-git	# make lint
)

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
