# /dev/bpf: the kernel series in patches/, and the harness that builds
# and tests it in QEMU. See README.md.

SHELL := /bin/bash
S := scripts

.PHONY: check check-debug check-distro check-upstream check-tools check-bisect run shell \
	bench build rootfs tree setup export lint deb clean

## check: build the patched kernel and run every suite in QEMU (busybox
## and Debian guests); ends "N passed, N failed"
check: build
	$(S)/check.sh

## check-debug: the busybox suites on a KASAN + lockdep + UBSAN kernel
check-debug: setup
	DEVBPF_KCONFIG=debug $(S)/build.sh
	DEVBPF_KCONFIG=debug $(S)/check.sh

## check-distro: every suite on Debian's own kernel config (slow to build)
check-distro: setup
	$(S)/setup.sh deb
	DEVBPF_KCONFIG=distro $(S)/build.sh
	DEVBPF_KCONFIG=distro $(S)/check.sh

## check-upstream: upstream's test_verifier, test_progs and test_maps as root, with
## the grant and without it, the grant matching root test for test; and
## the tree's ptrace/proc/exec... kselftests, patched against unpatched
check-upstream: build
	$(S)/setup.sh upstream
	$(S)/upstream.sh

## check-tools: every tool of Debian's libbpf-tools as root, and as a member
## through bpf-run with and without --scope trace (Debian guest, slow)
check-tools: build
	$(S)/check.sh tools

## check-bisect: build after each patch of the series in turn (slow)
check-bisect: build
	$(S)/setup.sh upstream
	$(S)/bisect.sh

## run: the demo on the Debian guest
run: build
	$(S)/boot.sh debian run

## shell: an interactive busybox guest shell as alice
shell: build
	$(S)/boot.sh busybox shell

## bench: the grant beside root, CAP_BPF and BPF token; writes docs/benchmarks.md
bench: build
	$(S)/bench.sh

## build: the work tree, kernel, guest programs and both guests' initramfs,
## incrementally (the Debian root file system is made beside them)
build: setup
	$(S)/build.sh

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
