#!/usr/bin/env bash
# upstream.sh: upstream's BPF selftests on the patched kernel, run as root,
# as a user who holds the /dev/bpf grant, and as the same user without it,
# then compared test by test (make check-upstream). UPSTREAM_SUITES names
# the suites, comma-separated (default: all three):
#   test_verifier  all of it
#   test_progs     test_progs -t verifier, from a test_progs built with
#                  prog_tests/verifier.c alone
#   test_maps      without the map tests that need BPF skeletons; about six
#                  minutes per run under TCG
#   kselftests     not BPF: the tree's own kselftests of what the series
#                  changes around ptrace and procfs (KSFT_DIRS below:
#                  ptrace, pidfd, proc, exec, capabilities, ...), as root,
#                  on the patched kernel and on the unpatched one (tag
#                  base, the same config less CONFIG_BPF_DEV, built in
#                  $WORK/build-base), compared test by test
# A BPF suite passes when the grant run's results equal root's test for
# test, but for the exceptions named below, and the run without the grant
# differs from root's: the comparison can tell. kselftests passes when
# both kernels' results are the same test for test, but for the
# exceptions named below. A missing run fails its suite; a boot that
# hangs, panics or splats is one more failure. Ends with "N passed, N
# failed".
#
# --build-only builds the BPF suites and stops (make check-bisect, at each
# patch that touches selftests/bpf): from DEVBPF_UPSTREAM_SRC instead of $TREE, in
# DEVBPF_UPSTREAM_DIR instead of $WORK/upstream, against the UAPI headers
# in DEVBPF_UPSTREAM_HEADERS instead of $BUILD/usr, without bpf_testmod.
#
# Built from $TREE in $WORK/upstream for the kernel in $BUILD, incrementally:
# upstream's Makefile makes libbpf, bpftool, vmlinux.h, the BPF objects and
# the skeletons; the test programs (static) and bpf_testmod.ko are made
# here, as that Makefile would make all of test_progs. Nothing is written
# into $TREE. The guest is the busybox one (guest/busybox/init,
# guest/main.sh) with the tests added; guest/upstream/upstream.sh runs
# them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

build_only=0
case ${1:-} in
--build-only) build_only=1 ;;
'') ;;
*) die "usage: upstream.sh [--build-only]" ;;
esac
SRC=${DEVBPF_UPSTREAM_SRC:-$TREE}
UP=${DEVBPF_UPSTREAM_DIR:-$WORK/upstream}
KHDR=${DEVBPF_UPSTREAM_HEADERS:-$BUILD/usr}
LOG_PREFIX=upstream
[ "$build_only" -eq 0 ] || LOG_PREFIX=bisect-upstream

IFS=, read -ra suites <<<"${UPSTREAM_SUITES:-test_verifier,test_progs,test_maps,kselftests}"
bpf_suites=() ksft=0
for s in "${suites[@]}"; do
	case $s in
	test_verifier | test_progs | test_maps) bpf_suites+=("$s") ;;
	kselftests) ksft=1 ;;
	*) die "UPSTREAM_SUITES: no suite '$s' (test_verifier, test_progs, test_maps, kselftests)" ;;
	esac
done
[ "$build_only" -eq 0 ] || bpf_suites=(test_verifier test_progs test_maps) ksft=0

# exception SUITE TEST WHY: where the grant cannot stand in for root for a
# reason outside BPF. TEST is an extended regex on test names; differences
# it matches are printed with WHY and do not fail the suite. (The non-BPF
# needs that the guest meets for the user instead are in
# guest/upstream/upstream.sh.)
ex_suite=() ex_test=() ex_why=()
exception() {
	ex_suite+=("$1") ex_test+=("$2") ex_why+=("$3")
}
exception test_progs '^verifier_mtu(/|$)' \
	"the test raises CAP_BPF and CAP_NET_ADMIN and drops CAP_SYS_ADMIN and CAP_PERFMON itself; the grant stands for all four or for none"

# exception_for SUITE NAME: the WHY of the first exception that NAME matches
exception_for() {
	local i
	for i in "${!ex_suite[@]}"; do
		if [ "${ex_suite[i]}" = "$1" ] && [[ $2 =~ ${ex_test[i]} ]]; then
			echo "${ex_why[i]}"
			return
		fi
	done
}

# classify SUITE A B: each difference on stdin (_, A's result, B's, the
# test), as a named exception or not, counted in the caller's $expected
# and $unexpected
classify() {
	local x y name why
	while IFS=$'\t' read -r _ x y name; do
		why=$(exception_for "$1" "$name")
		if [ -n "$why" ]; then
			echo "  exception: $name: $2 $x, $3 $y ($why)"
			expected=$((expected + 1))
		else
			echo "  DIFFERS: $name: $2 $x, $3 $y"
			unexpected=$((unexpected + 1))
		fi
	done
}

# The tree's kselftests (suite kselftests): the dirs whose tests reach
# what the series changes: ptrace_may_access() and commoncap.c's ptrace
# and exec checks (ptrace, pidfd's pidfd_getfd(), proc's /proc/<pid>/
# files, nsfs's /proc/<pid>/ns, capabilities, exec), fork and exit (clone3,
# pid_namespace, core's unshare). kcmp, seccomp and landlock's ptrace tests
# would too, but the test config has no CONFIG_KCMP, CONFIG_SECCOMP or
# CONFIG_SECURITY_LANDLOCK: they would fail alike on both kernels.
KSFT_DIRS=(ptrace pidfd proc exec capabilities nsfs clone3 pid_namespace core)
# ksft_exclude DIR:TEST WHY: a test of those dirs that is not run
ksft_out=() ksft_out_why=()
ksft_exclude() {
	ksft_out+=("$1") ksft_out_why+=("$2")
}
ksft_exclude exec:binfmt_script.py "a Python script, and the busybox guest has no python3"

SELFTESTS=$SRC/tools/testing/selftests/bpf
OUT=$UP/selftests # OUTPUT of upstream's Makefile
OBJ=$UP/obj       # the test programs' objects
GEN=$UP/gen       # their tests.h, which upstream's Makefile writes into $TREE
BIN=$UP/bin       # what the guest gets
RESULTS=$UP/results           # the runs on the patched kernel
RESULTS_BASE=$UP/results-base # kselftests on the unpatched kernel
KSFT=$UP/kselftests           # kselftests: build/DIR (OUTPUT), install (the guest's)
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

# --- building -------------------------------------------------------------

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

# --- comparing ------------------------------------------------------------

# split_runs LOG DIR: each run's output in DIR/SUITE.WHO.out, and its END
# line's "rc=N Ns" in SUITE.WHO.end (kselftests: WHO is the selftests dir)
split_runs() {
	rm -rf "$2"
	mkdir -p "$2"
	awk -v dir="$2" '
		/^devbpf: upstream BEGIN / { out = dir "/" $4 "." $5 ".out"; printf "" >out; next }
		/^devbpf: upstream END / { print $6, $7 >(dir "/" $4 "." $5 ".end"); close(out); out = ""; next }
		out != "" { print >out }' "$1"
}

# results SUITE FILE: the test results in a run's output, one a line:
# KEY, RESULT and the test's name, tab-separated, in the order printed
results() {
	case $1 in
	test_verifier)
		# "#12/p name OK", "#12/u name SKIP (why)", "#12/p name FAIL ..."
		awk '/^#[0-9]+\/[up] / {
			name = substr($0, length($1) + 2); r = "?"
			if (sub(/ SKIP( \(.*\))?$/, "", name)) r = "SKIP"
			else if (sub(/ FAIL.*$/, "", name)) r = "FAIL"
			else if (sub(/( Did not run the program \([^)]*\))* ([0-9]+ cases )?OK( \(NOTE: .*\))?$/, "", name)) r = "OK"
			print $1 "\t" r "\t" $1 " " name
		}' "$2"
		;;
	test_progs)
		# "#3/2     test/subtest:OK", "#3       test:OK (SKIP: 1/5)";
		# the failures are printed again after "All error logs:"
		awk '/^All error logs:/ { exit }
		/^#[0-9]+(\/[0-9]+)?[ \t]/ {
			line = $0
			sub(/^#[0-9]+(\/[0-9]+)?[ \t]+/, "", line)
			if (match(line, /:(OK|FAIL|SKIP)( \(SKIP: [0-9]+\/[0-9]+\))?$/)) {
				name = substr(line, 1, RSTART - 1)
				split(substr(line, RSTART + 1), r, " ")
				print name "\t" r[1] "\t" name
			}
		}' "$2"
		;;
	kselftests)
		# runner.sh's "# selftests: DIR: BIN" before a binary's output,
		# "ok N selftests: DIR: BIN" (or "not ok", "# SKIP") after it: the
		# binary's own result, keyed DIR/BIN. In between, its TAP lines,
		# prefixed "# ": "# ok N name", "# not ok N name", "... # SKIP
		# why" (XFAIL passes), keyed DIR/BIN: name, and a name seen twice
		# in one binary gets " (2)". RESULT is pass, fail or skip.
		local dir=${2##*/kselftests.}
		awk -v dir="${dir%.out}" '
		function result(line) {
			if (line ~ /^not ok/) return "fail"
			return line ~ /# *(SKIP|skip)/ ? "skip" : "pass"
		}
		/^# selftests: / { bin = $4; delete seen; next }
		/^(not )?ok [0-9]+ selftests: / {
			split($0, w, " # "); n = split(w[1], f, " ")
			k = dir "/" f[n]
			print k "\t" result($0) "\t" k
			bin = ""
			next
		}
		/^# (not )?ok [0-9]+/ && bin != "" {
			name = substr($0, 3)
			sub(/^(not )?ok [0-9]+ ?/, "", name)
			sub(/ *#.*$/, "", name)
			if (name == "") name = "#" (($0 ~ /^# not/) ? $4 : $3)
			if (++seen[name] > 1) name = name " (" seen[name] ")"
			k = dir "/" bin ": " name
			print k "\t" result(substr($0, 3)) "\t" k
		}' "$2"
		;;
	test_maps)
		# its final line, and every line that reports a test
		awk '/^test_maps: OK, [0-9]+ SKIPPED$/ { final = substr($0, 12); next }
		/SKIP|:PASS|:FAIL/ { if (!($0 in n)) order[++k] = $0; n[$0]++ }
		END {
			print "final status\t" (final != "" ? final : "none: it stopped") "\tfinal status"
			for (i = 1; i <= k; i++) print order[i] "\tprinted " n[order[i]] "x\t" order[i]
		}' "$2"
		;;
	esac
}

# summary SUITE FILE: what a run says about itself at its end
summary() {
	local line
	case $1 in
	test_maps) line=$(grep -E '^test_maps: OK' "$2" | tail -n 1 || true) ;;
	*) line=$(grep -E '^Summary: ' "$2" | tail -n 1 || true) ;;
	esac
	[ -n "$line" ] || line="no summary; its last line: $(grep -v '^\[ *[0-9.]*\]' "$2" | tail -n 1 | cut -c1-100)"
	echo "$line"
}

# differences A B: the keys whose results differ between the results A and
# B, as KEY, RESULT in A, RESULT in B and the name, tab-separated
differences() {
	awk -F'\t' '
		NR == FNR { a[$1] = $2; name[$1] = $3; order[++n] = $1; next }
		{ b[$1] = $2; if (!($1 in name)) { name[$1] = $3; order[++n] = $1 } }
		END {
			for (i = 1; i <= n; i++) {
				k = order[i]
				x = (k in a) ? a[k] : "missing"; y = (k in b) ? b[k] : "missing"
				if (x != y) print k "\t" x "\t" y "\t" name[k]
			}
		}' "$1" "$2"
}

# compare SUITE: prints the three runs' summaries and the comparison;
# fails if the suite does
compare() {
	local suite=$1 who r=$RESULTS/$1 missing=0 total unexpected=0 expected=0 nodiff
	echo "== $suite"
	for who in root grant nogrant; do
		if [ ! -f "$r.$who.end" ]; then
			printf '  %-8s did not run to its end\n' "$who"
			missing=1
			[ -f "$r.$who.out" ] || continue
		fi
		results "$suite" "$r.$who.out" >"$r.$who.tsv"
		printf '  %-8s %-12s %s\n' "$who" "$(cat "$r.$who.end" 2>/dev/null || echo 'rc=?')" \
			"$(summary "$suite" "$r.$who.out")"
	done
	if [ $missing -eq 1 ]; then
		echo "FAIL $suite: a run is missing, no comparison"
		return 1
	fi
	total=$(wc -l <"$r.root.tsv")
	if [ "$total" -eq 0 ]; then
		echo "FAIL $suite: root's run printed no test result"
		return 1
	fi

	differences "$r.root.tsv" "$r.grant.tsv" >"$r.grant.diff"
	classify "$suite" root grant <"$r.grant.diff"
	echo "  root and grant: $total results; $unexpected differ, $expected by a named exception"

	nodiff=$(differences "$r.root.tsv" "$r.nogrant.tsv" | wc -l)
	echo "  root and nogrant: $nodiff results differ, e.g.:"
	differences "$r.root.tsv" "$r.nogrant.tsv" | head -n 3 |
		awk -F'\t' '{ print "    " $4 ": root " $2 ", nogrant " $3 }'

	if [ "$unexpected" -gt 0 ]; then
		echo "FAIL $suite: the grant run differs from root's in $unexpected results"
		return 1
	elif [ "$nodiff" -eq 0 ]; then
		echo "FAIL $suite: the run without the grant does not differ from root's: the comparison cannot tell"
		return 1
	fi
	echo "PASS $suite: the grant run matches root's test for test; the run without it does not"
}

# counts TSV: "pass/fail/skip" of a results file
counts() {
	awk -F'\t' '{ n[$2]++ } END { printf "%d/%d/%d", n["pass"], n["fail"], n["skip"] }' "$1"
}

# compare_kselftests: each dir's results on both kernels, and the
# differences; fails if the suite does
compare_kselftests() {
	local d k r missing=0 unexpected=0 expected=0 i
	echo "== kselftests: the tree's, as root, on the patched and the unpatched kernel"
	for i in "${!ksft_out[@]}"; do
		echo "  not run: ${ksft_out[i]}: ${ksft_out_why[i]}"
	done
	printf '  %-14s %8s %7s  %-16s %-16s\n' dir binaries results "patched p/f/s" "unpatched p/f/s"
	for k in patched base; do : >"$UP/kselftests.$k.tsv"; done
	for d in "${KSFT_DIRS[@]}"; do
		for k in patched base; do
			r=$RESULTS/kselftests.$d
			[ $k = patched ] || r=$RESULTS_BASE/kselftests.$d
			if [ ! -f "$r.end" ]; then
				echo "  $d: the run on the $k kernel did not reach its end"
				missing=1
			fi
			if [ -f "$r.out" ]; then results kselftests "$r.out"; fi >"$r.tsv"
			cat "$r.tsv" >>"$UP/kselftests.$k.tsv"
		done
		printf '  %-14s %8s %7s  %-16s %-16s\n' "$d" "$(grep -vc ': ' "$RESULTS/kselftests.$d.tsv" || true)" \
			"$(wc -l <"$RESULTS/kselftests.$d.tsv")" \
			"$(counts "$RESULTS/kselftests.$d.tsv")" "$(counts "$RESULTS_BASE/kselftests.$d.tsv")"
	done
	[ "$missing" -eq 0 ] || { echo "FAIL kselftests: a run is missing"; return 1; }
	[ -s "$UP/kselftests.patched.tsv" ] || { echo "FAIL kselftests: no test result"; return 1; }

	classify kselftests patched unpatched < <(differences "$UP/kselftests.base.tsv" "$UP/kselftests.patched.tsv" |
		awk -F'\t' -v OFS='\t' '{ print $1, $3, $2, $4 }')
	awk -F'\t' 'NR == FNR { if ($2 == "fail") f[$1]; next }
		$2 == "fail" && $1 in f { print "  fails on both kernels: " $1 }' \
		"$UP/kselftests.base.tsv" "$UP/kselftests.patched.tsv"
	echo "  $(wc -l <"$UP/kselftests.patched.tsv") results; $unexpected differ, $expected by a named exception"
	if [ "$unexpected" -gt 0 ]; then
		echo "FAIL kselftests: the patched kernel's results differ from the unpatched kernel's in $unexpected"
		return 1
	fi
	echo "PASS kselftests: the patched kernel's results match the unpatched kernel's test for test"
}

# --- main -------------------------------------------------------------------

start=$SECONDS
[ ${#bpf_suites[@]} -eq 0 ] || build
if [ "$ksft" -eq 1 ]; then
	[ -d "$KHDR/include" ] || die "no UAPI headers in $KHDR (run: make build)"
	msg "building the kselftests of ${KSFT_DIRS[*]} (log: $LOGS/$LOG_PREFIX-kselftests.log)"
	run_logged "$LOG_PREFIX"-kselftests build_kselftests
	build_base_kernel
fi
msg "built in $((SECONDS - start)) s"
[ "$build_only" -eq 0 ] || exit 0
pack_guest

# boot KERNEL LOG SUITE...: the guest on KERNEL, with a timeout for the
# SUITEs under TCG, with room (test_maps takes about six minutes per run);
# only the guest's own lines on the terminal: the tests' output is long
boot() {
	local kernel=$1 log=$2 s timeout_s=120
	shift 2
	for s; do
		case $s in
		test_verifier) timeout_s=$((timeout_s + 600)) ;;
		test_progs) timeout_s=$((timeout_s + 900)) ;;
		test_maps) timeout_s=$((timeout_s + 2700)) ;;
		kselftests) timeout_s=$((timeout_s + 900)) ;;
		esac
	done
	DEVBPF_BOOT_KERNEL=$kernel DEVBPF_TIMEOUT=${DEVBPF_TIMEOUT:-$timeout_s} DEVBPF_CONSOLE_LOG=$log \
		"$REPO/scripts/boot.sh" busybox upstream "$(IFS=,; echo "$*")" |
		{ grep --line-buffered '^devbpf: ' || true; }
}

# the kselftests first, before the BPF suites change sysctls
boot_suites=("${bpf_suites[@]}")
[ "$ksft" -eq 0 ] || boot_suites=(kselftests "${bpf_suites[@]}")
log=$LOGS/console-$KCONFIG_FLAVOUR-busybox-upstream.log
base_log=$LOGS/console-base-busybox-upstream.log
boot_failed=0
start=$SECONDS
boot "$BUILD/arch/x86/boot/bzImage" "$log" "${boot_suites[@]}" || boot_failed=$((boot_failed + 1))
msg "suites ran in $((SECONDS - start)) s; console: $log"
split_runs "$log" "$RESULTS"
if [ "$ksft" -eq 1 ]; then
	start=$SECONDS
	boot "$BASE_BZIMAGE" "$base_log" kselftests || boot_failed=$((boot_failed + 1))
	msg "the unpatched kernel's kselftests ran in $((SECONDS - start)) s; console: $base_log"
	split_runs "$base_log" "$RESULTS_BASE"
fi

passed=0 failed=$boot_failed
[ $boot_failed -eq 0 ] || echo "FAIL $boot_failed boot(s) (see above)"
for s in "${suites[@]}"; do
	if [ "$s" = kselftests ]; then
		if compare_kselftests; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
	elif compare "$s"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
