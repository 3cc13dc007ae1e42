# /dev/bpf: the kernel series in patches/, and the harness that builds
# and tests it in QEMU. See README.md.

SHELL := /bin/bash
S := scripts

.PHONY: check check-debian check-debug check-distro check-upstream check-tools check-bisect run shell \
	bench build debian rootfs tree setup export lint deb clean

## check: build the patched kernel and run the busybox guest's suites in
## QEMU (the kselftests, libbpf, bpftool, bpf-run, stress, fuzz); ends
## "N passed, N failed"
check: build
	$(S)/check.sh

## check-debian: the Debian guest's suites: the package under the real
## udev, sysusers and systemd, Debian's bpftool and libbpf-tools, the
## scopes, AppArmor (the root file system is made first, with mmdebstrap)
check-debian: debian
	$(S)/check.sh debian

## check-debug: the busybox suites on a KASAN + lockdep + UBSAN kernel
check-debug: setup
	DEVBPF_KCONFIG=debug $(S)/build.sh
	DEVBPF_KCONFIG=debug $(S)/check.sh

## check-distro: every suite on Debian's own kernel config (slow to build)
check-distro: setup
	$(S)/setup.sh deb
	DEVBPF_KCONFIG=distro $(S)/build.sh
	DEVBPF_KCONFIG=distro $(S)/debian.sh
	DEVBPF_KCONFIG=distro $(S)/check.sh

## check-upstream: upstream's test_verifier, test_progs and test_maps as root, with
## the grant and without it, the grant matching root test for test; and
## the tree's ptrace/proc/exec... kselftests, patched against unpatched
check-upstream: build
	$(S)/setup.sh upstream
	$(S)/upstream.sh

## check-tools: every tool of Debian's libbpf-tools as root, and as a member
## through bpf-run with and without --scope trace (Debian guest, slow)
check-tools: debian
	$(S)/check.sh tools

## check-bisect: build after each patch of the series in turn (slow)
check-bisect: build
	$(S)/setup.sh upstream
	$(S)/bisect.sh

## run: the demo on the Debian guest
run: debian
	$(S)/boot.sh debian run

## shell: an interactive busybox guest shell as alice
shell: build
	$(S)/boot.sh busybox shell

## bench: the grant beside root, CAP_BPF and BPF token; writes docs/benchmarks.md
bench: build
	$(S)/bench.sh

## build: the work tree, kernel, guest programs and the busybox guest's
## initramfs, incrementally
build: setup
	$(S)/build.sh

## debian: the Debian guest's initramfs: the root file system and, over
## it, what build made and the administrator's package
debian: build
	$(S)/debian.sh

## rootfs: the Debian 12 root file system of the Debian guest (mmdebstrap)
rootfs: setup
	$(S)/rootfs.sh

## tree: unpack apt's linux-source-6.12 and apply patches/
tree: setup
	$(S)/tree.sh

## setup: install the Debian packages that build and check need (the other
## targets install what they need beyond them)
setup:
	$(S)/setup.sh

## lint: checkpatch --strict, shellcheck, git am, the UAPI header alone
lint: tree
	$(S)/setup.sh lint
	$(S)/lint.sh

## deb: Debian packages via bindeb-pkg; DEB_CONFIG=debian (default, hours) or test
deb: $(if $(filter test,$(DEB_CONFIG)),build,tree)
	$(S)/setup.sh deb
	$(S)/deb.sh

## export: write the work tree's commits back to patches/
export:
	$(S)/export.sh

## clean: remove the work directory (tree, builds, logs)
clean:
	$(S)/clean.sh
