#!/bin/sh
# bpftool with the /dev/bpf grant, as root, as alice (uid 1000, in group
# bpf) and as bob (uid 1001, not in it). Run as root, with /dev/bpf
# root:bpf 0440. Prints TAP.

BPFTOOL=$(command -v bpftool) || BPFTOOL=/usr/lib/devbpf/bpftool
PLAN=19

n=0
tmp=$(mktemp -d /tmp/bpftool-test.XXXXXX) || exit 1
chmod 0755 "$tmp"
# A bpffs instance of our own for the pins: it goes away with the test
# and does not depend on how /sys/fs/bpf is mounted (bpftool mounts it
# mode 0700 when it finds it unmounted, which would keep alice out).
BPFFS=$tmp/bpffs

ok() {
	n=$((n + 1))
	echo "ok $n $1"
}

not_ok() {
	n=$((n + 1))
	echo "not ok $n $1"
}

skip() {
	n=$((n + 1))
	echo "ok $n $1 # SKIP $2"
}

# check DESCRIPTION COMMAND...: one test, passes if COMMAND succeeds.
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# diag FILE: show FILE as TAP diagnostics, at most 60 lines of it.
diag() {
	sed -n '1,60s/^/# /p' "$1"
	_lines=$(wc -l <"$1")
	[ "$_lines" -le 60 ] || echo "# ... $((_lines - 60)) more lines"
}

# as USER COMMAND: run a shell command as USER; stdout and stderr go to
# $tmp/out and $tmp/err.
as() {
	su "$1" -c "$2" >"$tmp/out" 2>"$tmp/err"
}

cleanup() {
	umount "$BPFFS" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap "exit 1" HUP INT TERM

# Writes N bytes of the little-endian value V: le N V
le() {
	_v=$2
	_i=0
	while [ "$_i" -lt "$1" ]; do
		# shellcheck disable=SC2059 # the byte is an octal escape
		printf "\\$(printf %o $((_v & 255)))"
		_v=$((_v >> 8))
		_i=$((_i + 1))
	done
}

# A BPF object file with one socket filter, "rootprog": r0 = 0; exit.
# There is no clang in the guest, so it is written field by field; it
# is what clang -target bpf makes of
#   SEC("socket") int rootprog(void *ctx) { return 0; }
#   char _license[] SEC("license") = "GPL";
# without BTF. Layout: ELF header (64 bytes) at 0, code at 0x40 (16),
# license at 0x50 (4), .strtab at 0x54 (41), .symtab at 0x80 (2 * 24),
# section headers at 0xb0 (5 * 64).
write_bpf_object() {
	# ELF header: ELFCLASS64, little endian, ET_REL, EM_BPF (247)
	printf '\177ELF'; le 1 2; le 1 1; le 1 1; le 9 0
	le 2 1; le 2 247; le 4 1; le 8 0; le 8 0; le 8 176
	le 4 0; le 2 64; le 2 0; le 2 0; le 2 64; le 2 5; le 2 1
	# 0x40, section "socket": r0 = 0 (b7 00..), exit (95 00..)
	le 8 183; le 8 149
	# 0x50, section "license"
	printf 'GPL\0'
	# 0x54, .strtab: names at 1, 9, 16, 24, 32
	printf '\0.strtab\0socket\0license\0.symtab\0rootprog\0'
	le 3 0		# pad to 0x80
	# 0x80, .symtab: the null symbol, then rootprog: STB_GLOBAL
	# STT_FUNC (0x12) in section 2, value 0, size 16
	le 24 0
	le 4 32; le 1 18; le 1 0; le 2 2; le 8 0; le 8 16
	# 0xb0, section headers:
	# name type flags addr offset size link info align entsize
	le 64 0
	shdr 1 3 0 84 41 0 0 1 0	# .strtab, SHT_STRTAB
	shdr 9 1 6 64 16 0 0 8 0	# socket, SHT_PROGBITS, AX
	shdr 16 1 3 80 4 0 0 1 0	# license, SHT_PROGBITS, WA
	shdr 24 2 0 128 48 1 1 8 24	# .symtab, SHT_SYMTAB
}

shdr() {
	le 4 "$1"; le 4 "$2"; le 8 "$3"; le 8 0; le 8 "$4"; le 8 "$5"
	le 4 "$6"; le 4 "$7"; le 8 "$8"; le 8 "$9"
}

# grant_while_reading USER ARGS...: runs "bpftool ARGS" as USER (and
# group bpf), where ARGS name the FIFO $tmp/fifo as the file to read. Once
# bpftool waits in openat() for the FIFO, that is, once it has started to
# read its input, prints its BpfDev status (0 or 1) and kills it.
grant_while_reading() {
	_uid=$(id -u "$1")
	shift
	rm -f "$tmp/fifo" && mkfifo -m 0644 "$tmp/fifo"
	setcreds "$_uid" "$_uid" "$(awk -F: '$1 == "bpf" { print $3 }' /etc/group)" \
		"$BPFTOOL" "$@" >"$tmp/out" 2>"$tmp/err" &
	_pid=$!
	_i=0
	# 257 is openat on x86_64; only the FIFO blocks bpftool there
	until [ "$(cut -d' ' -f1 "/proc/$_pid/syscall" 2>/dev/null)" = 257 ]; do
		_i=$((_i + 1))
		[ $_i -lt 200 ] || break
		sleep 0.05
	done
	sed -n 's/^BpfDev:[[:space:]]*//p' "/proc/$_pid/status"
	kill -9 "$_pid"
	wait "$_pid"
}

echo "1..$PLAN"

# --- setup ----------------------------------------------------------------
check "setup: /dev/bpf is root:bpf 0440" \
	test "$(stat -c '%U:%G %a' /dev/bpf 2>/dev/null)" = "root:bpf 440"

mkdir "$BPFFS" && mount -t bpf bpf "$BPFFS" &&
	mkdir "$BPFFS/alice" && chown alice:alice "$BPFFS/alice" ||
	echo "# setup: could not mount bpffs on $BPFFS"

# --- root creates a map and loads a program -------------------------------
check "root: bpftool map create, pinned" \
	"$BPFTOOL" map create "$BPFFS/rootmap" type hash key 4 value 4 \
	entries 4 name rootmap

write_bpf_object >"$tmp/rootprog.o"
if "$BPFTOOL" prog load "$tmp/rootprog.o" "$BPFFS/rootprog" \
	>"$tmp/out" 2>"$tmp/err"; then
	ok "root: bpftool prog load, pinned"
	have_prog=1
else
	not_ok "root: bpftool prog load, pinned"
	diag "$tmp/err"
	have_prog=
fi

# --- alice, in group bpf: bpftool takes the grant -------------------------
if as alice "$BPFTOOL map list" && grep -q "name rootmap" "$tmp/out"; then
	ok "alice: bpftool map list shows root's map"
else
	not_ok "alice: bpftool map list shows root's map"
	diag "$tmp/err"
fi

# Listing needs the CAP_SYS_ADMIN check of BPF_PROG_GET_NEXT_ID, which
# comes before the walk: it fails with EPERM even when no program exists.
if as alice "$BPFTOOL prog list"; then
	ok "alice: bpftool prog list succeeds"
else
	not_ok "alice: bpftool prog list succeeds"
	diag "$tmp/err"
fi
if [ -z "$have_prog" ]; then
	skip "alice: bpftool prog list shows root's program" "not loaded"
elif grep -q "name rootprog" "$tmp/out"; then
	ok "alice: bpftool prog list shows root's program"
else
	not_ok "alice: bpftool prog list shows root's program"
	diag "$tmp/out"
fi

# An LRU hash map needs CAP_BPF.
# Commands that parse a file take the grant only after parsing it, or not
# at all; what bpftool reads then is read without BPF privilege.
for cmd in "btf dump file" "gen skeleton"; do
	# shellcheck disable=SC2086 # $cmd is two words
	held=$(grant_while_reading alice $cmd "$tmp/fifo")
	if [ "$held" = 0 ]; then
		ok "alice: bpftool $cmd parses the file without the grant"
	else
		not_ok "alice: bpftool $cmd parses the file without the grant"
		echo "# BpfDev while parsing: '$held'"
	fi
done
held=$(grant_while_reading alice prog load "$tmp/fifo" "$BPFFS/alice/fifoprog")
if [ "$held" = 0 ]; then
	ok "alice: bpftool prog load parses the object without the grant"
else
	not_ok "alice: bpftool prog load parses the object without the grant"
	echo "# BpfDev while parsing: '$held'"
fi
if as alice "$BPFTOOL prog load $tmp/rootprog.o $BPFFS/alice/prog" &&
	as alice "$BPFTOOL prog show pinned $BPFFS/alice/prog" &&
	grep -q "name rootprog" "$tmp/out"; then
	ok "alice: bpftool prog load then loads it with the grant"
else
	not_ok "alice: bpftool prog load then loads it with the grant"
	diag "$tmp/err"
fi

if as alice "$BPFTOOL map create $BPFFS/alice/lru type lru_hash key 4 value 4 entries 4 name alicelru" &&
	as alice "$BPFTOOL map show pinned $BPFFS/alice/lru" &&
	grep -q "lru_hash  name alicelru" "$tmp/out"; then
	ok "alice: bpftool map create of an LRU hash map"
else
	not_ok "alice: bpftool map create of an LRU hash map"
	diag "$tmp/err"
fi

# --- feature probe: alice as root -----------------------------------------
# Both outputs are kept in the same order, stdout then stderr, so that
# the comparison does not depend on how the two streams interleave.
"$BPFTOOL" feature probe kernel >"$tmp/probe.root" 2>"$tmp/probe.root.err"
cat "$tmp/probe.root.err" >>"$tmp/probe.root"
if as alice "$BPFTOOL feature probe kernel"; then
	ok "alice: bpftool feature probe kernel runs"
else
	not_ok "alice: bpftool feature probe kernel runs"
	diag "$tmp/err"
fi
cat "$tmp/err" >>"$tmp/out"
mv "$tmp/out" "$tmp/probe.alice"

# The grant passes the checks of bpf() itself. Lines may differ only
# where the probe depends on a check elsewhere:
#  - /proc/sys/net/core/bpf_jit_{harden,kallsyms,limit} are root-only
#    (mode 0600) sysctls: alice gets "Unable to retrieve ...";
#  - bpf_probe_write_user: its proto is only handed out with
#    capable(CAP_SYS_ADMIN) (kernel/trace/bpf_trace.c), a tracing check.
#    bpftool probes it only with "full", which is not used here (it
#    fills the kernel log), so this is for the day it is.
# perf_event_open() checks are not involved: the probe loads programs
# but attaches none.
allowed='JIT (compiler )?hardening|JIT (compiler )?kallsyms|[Gg]lobal memory limit for JIT|bpf_probe_write_user'
diff -U0 "$tmp/probe.root" "$tmp/probe.alice" |
	grep -E '^[-+]' | grep -vE '^(---|\+\+\+) ' >"$tmp/probe.diff"
grep -vE "$allowed" "$tmp/probe.diff" >"$tmp/probe.unexpected"
echo "# feature probe, root (-) vs alice (+): $(wc -l <"$tmp/probe.diff") lines differ"
diag "$tmp/probe.diff"
if [ -s "$tmp/probe.root" ] && [ ! -s "$tmp/probe.unexpected" ]; then
	ok "alice: feature probe differs from root only outside bpf() checks"
else
	echo "# not explained:"
	diag "$tmp/probe.unexpected"
	not_ok "alice: feature probe differs from root only outside bpf() checks"
fi

# --- bob, not in group bpf: bpftool runs as it always did -----------------
if as bob "$BPFTOOL map list"; then
	not_ok "bob: bpftool map list fails"
else
	ok "bob: bpftool map list fails"
fi
diag "$tmp/err"
check "bob: the error names /dev/bpf" grep -q /dev/bpf "$tmp/err"

# The hint is for a failure with EPERM, and says why the grant was not had.
if as bob "$BPFTOOL map create $BPFFS/bob-lru type lru_hash key 4 value 4 entries 4 name boblru"; then
	not_ok "bob: an EPERM failure hints at /dev/bpf and why it was not used"
elif grep -q "Hint: .*/dev/bpf.*Permission denied" "$tmp/err"; then
	ok "bob: an EPERM failure hints at /dev/bpf and why it was not used"
else
	not_ok "bob: an EPERM failure hints at /dev/bpf and why it was not used"
	diag "$tmp/err"
fi
if as bob "$BPFTOOL map show pinned $tmp/no-such-pin"; then
	not_ok "bob: a failure other than EPERM gives no hint"
elif grep -q "Hint" "$tmp/err"; then
	not_ok "bob: a failure other than EPERM gives no hint"
	diag "$tmp/err"
else
	ok "bob: a failure other than EPERM gives no hint"
fi

if as bob "$BPFTOOL version" && [ ! -s "$tmp/err" ]; then
	ok "bob: bpftool version works, with nothing on stderr"
else
	not_ok "bob: bpftool version works, with nothing on stderr"
	diag "$tmp/err"
fi

if [ ! -r /sys/kernel/btf/vmlinux ]; then
	skip "bob: bpftool btf dump file works, with nothing on stderr" \
		"no /sys/kernel/btf/vmlinux"
elif as bob "$BPFTOOL btf dump file /sys/kernel/btf/vmlinux" &&
	[ -s "$tmp/out" ] && [ ! -s "$tmp/err" ]; then
	ok "bob: bpftool btf dump file works, with nothing on stderr"
else
	not_ok "bob: bpftool btf dump file works, with nothing on stderr"
	diag "$tmp/err"
fi

[ "$n" -eq "$PLAN" ] || not_ok "the plan: $PLAN tests planned, $n ran"
