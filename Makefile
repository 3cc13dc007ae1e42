# /dev/bpf: the kernel series in patches/, and the harness that builds
# and tests it in QEMU. See README.md.

SHELL := /bin/bash
S := scripts

.PHONY: check check-debug check-bisect run shell bench build tree setup export lint deb clean

## check: build the patched kernel and run every test in QEMU
check: build
	$(S)/boot.sh check

## check-debug: the same tests on a KASAN + lockdep + UBSAN kernel
check-debug: tree
	DEVBPF_KCONFIG=debug $(S)/build.sh
	DEVBPF_KCONFIG=debug $(S)/boot.sh check

## check-bisect: build after each patch of the series in turn (slow)
check-bisect: tree
	$(S)/bisect.sh

## run: boot the demo (uid 1000 in group bpf takes and gives back the grant)
run: build
	$(S)/boot.sh run

## shell: an interactive guest shell as that user
shell: build
	$(S)/boot.sh shell

## bench: the grant beside root, CAP_BPF and BPF token; writes docs/benchmarks.md
bench: build
	$(S)/bench.sh

## build: kernel, guest programs and initramfs, incrementally
build: tree
	$(S)/build.sh

## tree: unpack apt's linux-source-6.12 and apply patches/
tree: setup
	$(S)/tree.sh

## setup: install the Debian packages the harness needs
setup:
	$(S)/setup.sh

## lint: checkpatch --strict, shellcheck, and git am onto a fresh unpack
lint: tree
	$(S)/lint.sh

## deb: Debian packages via bindeb-pkg; DEB_CONFIG=debian (default, hours) or test
deb: $(if $(filter test,$(DEB_CONFIG)),build,tree)
	$(S)/deb.sh

## export: write the work tree's commits back to patches/
export:
	$(S)/export.sh

## clean: remove the work directory (tree, builds, logs)
clean:
	$(S)/clean.sh
