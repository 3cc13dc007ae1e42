# shellcheck shell=bash
# Sourced by scripts/upstream.sh: building upstream's BPF selftests
# (test_verifier, test_progs -t verifier, test_maps, bpf_testmod.ko) and
# the tree's kselftests, and packing them into the busybox guest. Uses the
# folders and suites that upstream.sh sets.

LLVM_TOOLS=(CLANG=clang-19 LLC=llc-19 LLVM_STRIP=llvm-strip-19
	LLVM_OBJCOPY=llvm-objcopy-19 LLVM_CONFIG=llvm-config-19)
# upstream's Makefile's flags for its test programs, static, our tests.h first
CFLAGS=(-g -O0 -rdynamic -Wall -Werror -fno-omit-frame-pointer -static -D_GNU_SOURCE=
	-I"$GEN" -I"$SELFTESTS" -I"$OUT/tools/include" -I"$SRC/tools/lib"
	-I"$SRC/tools/include" -I"$SRC/tools/arch/x86/include"
	-I"$SRC/tools/include/uapi" -I"$OUT")
LIBBPF=$OUT/tools/build/libbpf/libbpf.a
LIBS=("$LIBBPF" -lelf -lz -lrt -lpthread)
# test_progs' helpers (TRUNNER_EXTRA_SOURCES of upstream's Makefile)
PROGS_HELPERS=(cgroup_helpers trace_helpers network_helpers testing_helpers
	btf_helpers cap_helpers unpriv_helpers netlink_helpers jit_disasm_helpers
	test_loader xsk disasm disasm_helpers json_writer)

# selftests_make TARGET...: upstream's Makefile, for TARGETs in $OUT;
# without the LLVM disassembler (test_progs then skips __jited checks)
selftests_make() {
	make -C "$SELFTESTS" -j"$(nproc)" OUTPUT="$OUT" VMLINUX_BTF="$BUILD/vmlinux" \
		"${LLVM_TOOLS[@]}" feature-llvm=0 "$@"
}

# fresh TARGET FILE...: TARGET exists and is newer than every FILE
fresh() {
	local target=$1 f
	shift
	[ -e "$target" ] || return 1
	for f; do
		[ "$f" -ot "$target" ] || return 1
	done
}

# compile OBJ SRC: unless OBJ is newer than all its last compile read
compile() {
	local obj=$1 src=$2 deps=()
	if [ -f "$obj.d" ]; then
		mapfile -t deps < <(awk '{ sub(/^[^:]*:/, ""); for (i = 1; i <= NF; i++) if ($i != "\\") print $i }' "$obj.d")
		fresh "$obj" "${deps[@]}" && return 0
	fi
	echo "CC $src"
	gcc "${CFLAGS[@]}" -MMD -MF "$obj.d" -c "$src" -o "$obj"
}

# program NAME SRC...: compiles the SRCs (in $SELFTESTS) and links $BIN/NAME
program() {
	local name=$1 src objs=()
	shift
	mkdir -p "$OBJ" "$BIN"
	for src; do
		objs+=("$OBJ/$(basename "$src" .c).o")
		compile "${objs[-1]}" "$SELFTESTS/$src"
	done
	fresh "$BIN/$name" "${objs[@]}" "$LIBBPF" && return 0
	echo "LINK $name"
	gcc "${CFLAGS[@]}" "${objs[@]}" "${LIBS[@]}" -o "$BIN/$name"
}

# write_if_changed FILE: stdin to FILE, which keeps its timestamp if the
# content is the same
write_if_changed() {
	mkdir -p "$(dirname "$1")"
	cat >"$1.new"
	if cmp -s "$1.new" "$1"; then rm "$1.new"; else mv "$1.new" "$1"; fi
}

# define_tests FILE...: a test runner's tests.h, as upstream's Makefile
# makes it from the runner's test files
define_tests() {
	echo '/* Generated header, do not edit */'
	sed -n -E 's/^void (serial_)?test_([a-zA-Z0-9_]+)\((void)?\).*/DEFINE_TEST(\2)/p' "$@" | sort
}

# bpf_testmod.ko for the kernel in $BUILD. Kbuild of 6.12 builds an
# external module in its source folder: a copy, with the timestamps kept.
# build.sh makes bzImage alone: modules_prepare adds what modules need
# (scripts/module.lds), and as there is no Module.symvers, modpost gets
# vmlinux's exports from vmlinux.symvers (and warns, harmlessly).
# The module's BTF is split BTF on top of vmlinux's, but an M= build does
# not relink a module when only vmlinux changed (Makefile.modfinal lists
# vmlinux as a prerequisite only with KBUILD_BUILTIN): the old module
# would then fail to load ("failed to validate module BTF"). A relinked
# kernel (make deb relinks it with its own build version) takes the
# module's link with it.
build_testmod() {
	local dir=$UP/bpf_testmod symvers=()
	rsync -a "$SELFTESTS/bpf_testmod/" "$dir/"
	[ "$dir/bpf_testmod.ko" -nt "$BUILD/vmlinux" ] || rm -f "$dir/bpf_testmod.ko"
	kmake "$SRC" "$BUILD" modules_prepare
	[ -f "$BUILD/Module.symvers" ] || symvers=(KBUILD_EXTRA_SYMBOLS="$BUILD/vmlinux.symvers")
	kmake "$SRC" "$BUILD" M="$dir" "${symvers[@]}" modules
	cp -p "$dir/bpf_testmod.ko" "$BIN/"
}

build() {
	local f skels=() maps_objs=() map_tests=() left_out=() progs_objs=()
	[ -e "$SRC/.git" ] || die "no work tree at $SRC (run: make tree)"
	[ -f "$BUILD/vmlinux" ] || die "no kernel in $BUILD (run: make build)"
	command -v clang-19 >/dev/null || die "clang-19 is missing (run: make setup)"
	for f in verifier prog_tests map_tests; do
		[ ! -e "$SELFTESTS/$f/tests.h" ] ||
			die "$SELFTESTS/$f/tests.h, from a selftests build in the tree, would be used instead of ours: remove it"
	done
	mkdir -p "$OUT" "$BIN"
	# the BPF side sees the kernel's UAPI headers in $OUT/../usr/include
	[ -d "$KHDR/include" ] || die "no UAPI headers in $KHDR (run: make build)"
	ln -sfn "$KHDR" "$UP/usr"

	# the skeletons that prog_tests/verifier.c includes; the BPF objects
	# that test_maps and those verifier tests open at run time
	mapfile -t skels < <(sed -n 's/^#include "\(.*\.skel\.h\)"$/\1/p' "$SELFTESTS/prog_tests/verifier.c")
	mapfile -t maps_objs < <(sed -n 's|.*"\./\([a-z0-9_]*\.bpf\.o\)".*|\1|p' "$SELFTESTS/test_maps.c")
	mapfile -t progs_objs < <(cd "$SELFTESTS/progs" && sed -n 's/.*__btf_path("\([^"]*\)").*/\1/p' \
		"${skels[@]/%.skel.h/.c}" | sort -u)
	# the map tests that include a skeleton stay out (it would take all of
	# progs/ to build them)
	for f in "$SELFTESTS"/map_tests/*.c; do
		if grep -q '\.skel\.h"' "$f"; then left_out+=("${f##*/}"); else map_tests+=("map_tests/${f##*/}"); fi
	done

	msg "building libbpf, bpftool, vmlinux.h, ${#skels[@]} skeletons and $((${#maps_objs[@]} + ${#progs_objs[@]})) BPF objects (log: $LOGS/$LOG_PREFIX-selftests.log)"
	run_logged "$LOG_PREFIX"-selftests selftests_make "$LIBBPF" \
		"${skels[@]/#/$OUT/}" "${maps_objs[@]/#/$OUT/}" "${progs_objs[@]/#/$OUT/}"
	for f in "${maps_objs[@]}" "${progs_objs[@]}"; do
		cp -p "$OUT/$f" "$BIN/"
	done

	{
		echo '/* Generated header, do not edit */'
		echo '#ifdef FILL_ARRAY'
		printf '#include "%s"\n' "$SELFTESTS"/verifier/*.c
		echo '#endif'
	} | write_if_changed "$GEN/verifier/tests.h"
	define_tests "$SELFTESTS/prog_tests/verifier.c" | write_if_changed "$GEN/prog_tests/tests.h"
	define_tests "${map_tests[@]/#/$SELFTESTS/}" | write_if_changed "$GEN/map_tests/tests.h"

	msg "building test_verifier, test_progs and test_maps (without ${left_out[*]}) (logs: $LOGS/$LOG_PREFIX-*.log)"
	run_logged "$LOG_PREFIX"-test_verifier program test_verifier \
		test_verifier.c testing_helpers.c cap_helpers.c unpriv_helpers.c
	run_logged "$LOG_PREFIX"-test_progs program test_progs \
		test_progs.c prog_tests/verifier.c "${PROGS_HELPERS[@]/%/.c}"
	run_logged "$LOG_PREFIX"-test_maps program test_maps \
		test_maps.c "${map_tests[@]}" testing_helpers.c cap_helpers.c
	[ "$build_only" -eq 0 ] || return 0
	msg "building bpf_testmod.ko (log: $LOGS/$LOG_PREFIX-bpf_testmod.log)"
	run_logged "$LOG_PREFIX"-bpf_testmod build_testmod
}

# ksft_make DIR ARG...: the Makefile of selftests/DIR, its output in
# $KSFT/build/DIR, against the kernel's UAPI headers
ksft_make() {
	local dir=$1
	shift
	mkdir -p "$KSFT/build/$dir"
	make -C "$SRC/tools/testing/selftests/$dir" -j"$(nproc)" OUTPUT="$KSFT/build/$dir" \
		KHDR_INCLUDES="-isystem $KHDR/include" "$@"
}

# build_kselftests: the tests of KSFT_DIRS, static, installed in
# $KSFT/install as the selftests' top Makefile installs them: a folder per
# dir, the tree's runner, kselftest-list.txt (without the excluded tests).
# exec's load_address tests are PIE by design (they check where the kernel
# maps the binary): they are made first, as their rules say, not static;
# the guest gets the dynamic loader and libc for the three of them that
# are not static-pie.
build_kselftests() {
	local d pie=()
	rm -rf "$KSFT/install"
	mkdir -p "$KSFT/install/kselftest"
	cp "$SRC/tools/testing/selftests/kselftest/runner.sh" "$KSFT/install/kselftest/"
	mapfile -t pie < <(ksft_make exec -s --no-print-directory COLLECTION=exec emit_tests |
		sed -n "s|^exec:\(load_address\..*\)|$KSFT/build/exec/\1|p")
	ksft_make exec "${pie[@]}"
	for d in "${KSFT_DIRS[@]}"; do
		ksft_make "$d" USERLDFLAGS=-static install INSTALL_PATH="$KSFT/install/$d"
	done
	for d in "${KSFT_DIRS[@]}"; do
		ksft_make "$d" -s --no-print-directory COLLECTION="$d" emit_tests
	done | grep -vxF -f <(printf '%s\n' "${ksft_out[@]}") >"$KSFT/install/kselftest-list.txt"
}

# The busybox guest of build.sh with the tests and the guest's scripts
# added: the kernel unpacks the two archives in turn.
pack_guest() {
	local stage=$UP/guest lib=$UP/guest/usr/lib/devbpf f
	[ -f "$GUEST/initramfs.cpio" ] || die "no busybox guest at $GUEST (run: make build)"
	rm -rf "$stage"
	mkdir -p "$lib"
	[ ${#bpf_suites[@]} -eq 0 ] || cp -a "$BIN" "$lib/upstream"
	if [ "$ksft" -eq 1 ]; then
		cp -a "$KSFT/install" "$lib/kselftests"
		# exec's scripts start "#!/bin/bash"; its PIE tests need ld.so and libc
		install -D /bin/bash-static "$stage/bin/bash"
		for f in "$KSFT"/install/exec/load_address.0x*; do ldd "$f"; done |
			grep -o '/[^ ]*' | sort -u | while read -r f; do install -D "$f" "$stage$f"; done
	fi
	cp "$REPO/guest/main.sh" "$REPO"/guest/upstream/*.sh "$lib/"
	find "$stage" -type d -exec chmod 0755 {} +
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) \
		>"$UP/upstream.cpio"
	cat "$GUEST/initramfs.cpio" "$UP/upstream.cpio" >"$UP/initramfs.cpio"
	msg "guest: $UP/initramfs.cpio ($(du -m "$UP/initramfs.cpio" | cut -f1) MiB)"
}
