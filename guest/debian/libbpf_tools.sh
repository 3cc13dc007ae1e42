#!/bin/bash
# Every tool of Debian's libbpf-tools 0.26, unmodified, three times: as
# root, as alice through `bpf-run --scope trace` (/dev/bpf-trace: the
# grant plus what tracing needs outside bpf(): perf_event_open() of
# kprobe, uprobe and tracepoint PMUs and CPU-wide BPF-output events, the
# tracepoints' id and format files in tracefs, real addresses in
# /proc/kallsyms) and as alice through plain `bpf-run` (/dev/bpf: bpf()'s
# checks only). A light workload runs meanwhile so that the tools see
# events. Prints the measured table as TAP comments, then TAP:
#   - per tool that root runs here: alice through --scope trace runs it
#     too; per tool that root cannot run: a SKIP with root's reason;
#   - per tool that root runs: the plain grant runs it as well, or it
#     fails at a gate outside bpf() (EACCES from perf_event_open() or
#     tracefs, or kernel stacks that /proc/kallsyms cannot name);
#   - offcputime, wakeuptime and klockstat print kernel stacks: through
#     --scope trace every name is one of root's /proc/kallsyms, and at
#     least 3 distinct; the plain grant fails that.
# Which tool works where is measured, not listed here. Run as root in
# devbpf.service, after devbpf-admin is installed. LIBBPF_TOOLS_MD=FILE
# also writes the table to FILE in Markdown.
set -uo pipefail
export LC_COLLATE=C
# shellcheck source=tap.sh
. /usr/lib/devbpf/tap.sh

sbin=/usr/sbin
port=8377
tmp=$(mktemp -d)
start=$SECONDS

# The tools and their arguments, from libbpf-tools/*.c of bcc 0.26:
#   TOOL STOP [ARG...]
# STOP "-": the tool ends by itself (interval and count, or a duration),
# within 15 s; a number: it runs until SIGINT, that many seconds after
# it started. The fs tools name their file system by their own name
# (ext4dist is fsdist -t ext4), killsnoop is sigsnoop -k. opensnoop -d
# exits 1 when it handled events in its last poll: it is stopped instead.
tools=(
	"bashreadline 2"
	"bindsnoop 2"
	"biolatency - 1 1"
	"biopattern - 1 1"
	"biosnoop 2"
	"biostacks - 1"
	"biotop - -C 1 1"
	"bitesize - 1 1"
	"cachestat - 1 1"
	"capable 2"
	"cpudist - 1 1"
	"cpufreq - -d 1"
	"drsnoop - -d 1"
	"execsnoop 2"
	"exitsnoop 2"
	"filelife 2"
	"filetop - -C 1 1"
	"fsdist - -t ext4 1 1"
	"fsslower - -t ext4 -d 1"
	"funclatency - -d 1 vfs_read"
	"gethostlatency 2"
	"hardirqs - 1 1"
	"javagc 2 -p @PID@"
	"klockstat - -d 1 -n 5 -s 3"
	"ksnoop 2 trace ip_send_skb"
	"llcstat - 1"
	"mdflush 2"
	"mountsnoop 2"
	"numamove 2"
	"offcputime - -k 1"
	"oomkill 2"
	"opensnoop 2"
	"readahead - -d 1"
	"runqlat - 1 1"
	"runqlen - 1 1"
	"runqslower 2 1000"
	"sigsnoop 2"
	"slabratetop - -C 1 1"
	"softirqs - 1 1"
	"solisten 2"
	"statsnoop 2"
	"syscount - -d 1"
	"tcpconnect 2"
	"tcpconnlat 2"
	"tcplife 2"
	"tcprtt - -i 1 -d 1"
	"tcpstates 2"
	"tcpsynbl - 1 1"
	"tcptop - -C 1 1"
	"tcptracer 2"
	"vfsstat - 1 1"
	"wakeuptime - 1"
	"btrfsdist - 1 1"
	"btrfsslower - -d 1"
	"ext4dist - 1 1"
	"ext4slower - -d 1"
	"killsnoop 2"
	"nfsdist - 1 1"
	"nfsslower - -d 1"
	"xfsdist - 1 1"
	"xfsslower - -d 1"
)
# The tools that print kernel stacks, which /proc/kallsyms names.
stack_tools=(offcputime wakeuptime klockstat)
columns=(root trace bpf)
declare -A launcher=([root]="" [trace]="bpf-run --scope trace " [bpf]="bpf-run ")
declare -A works reason syms

# --- the workload ----------------------------------------------------------------
# Processes come and go; a file is written, read and removed; a TCP
# connection to a loopback listener, a UDP datagram, a name lookup
# (getaddrinfo(), for gethostlatency), a signal, a sleep: about five
# times a second, as root.
perl -MIO::Socket::INET -e '
	my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1:'$port'",
		Listen => 64, ReuseAddr => 1) or die "listen: $!";
	while (my $c = $s->accept) { print $c "hello\n"; close $c }' &
server=$!
workload() {
	local i=0
	while :; do
		/bin/true
		echo "$i" >"$tmp/wl.$i" && cat "$tmp/wl.$i" >/dev/null && rm -f "$tmp/wl.$i"
		read -r _ <"/dev/tcp/127.0.0.1/$port"
		echo "$i" >/dev/udp/127.0.0.1/9
		getent ahosts localhost >/dev/null
		sleep 5 &
		kill $!
		sleep 0.2
		i=$((i + 1))
	done
}
workload >/dev/null 2>&1 &
churn=$!
cleanup() {
	kill "$churn" "$server" 2>/dev/null
	wait "$churn" "$server" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# --- one run ---------------------------------------------------------------------------
# The lines of an error output that say something failed.
errors() {
	grep -Ei 'fail|error|denied|not permitted|cannot|can.t|unable|invalid|not found|no such|not supported|usage' "$1"
}
# shorten: an error line for the table.
shorten() {
	sed -E -e 's/^libbpf: //' -e "s/^prog '[^']*': //" -e 's/^(failed to|Failed to) //' \
		-e 's/ \(0x[0-9a-f]+\)//g' -e 's/\|/\//g' | cut -c1-90
}
# stack_names TOOL FILE: the kernel function names of the stacks TOOL
# printed in FILE, one per line: offcputime prints each frame's name
# indented by four spaces, wakeuptime each address and name after a tab,
# klockstat NAME+0xOFFSET ("Unknown" when it found none).
stack_names() {
	case $1 in
	offcputime) awk 'NF == 1 && /^    [^ ]/ && $1 !~ /^[0-9]+$/ { print $1 }' "$2" ;;
	wakeuptime) awk '/^\t/ && NF == 2 && $1 ~ /^[0-9a-f]+$/ { print $2 }' "$2" ;;
	klockstat)
		awk '$1 ~ /\+0x[0-9a-f]+$/ { sub(/\+0x[0-9a-f]+$/, "", $1); print $1 }
			$1 == "Unknown" { print $1 }' "$2"
		;;
	esac
}
# symcheck TOOL COLUMN: whether the run's stacks are named as root's
# /proc/kallsyms names them: at least 3 distinct names, all of them
# there. The tool's own BPF program is on the stacks it takes, as
# bpf_prog_TAG_NAME, which /proc/kallsyms lists only while it is loaded:
# root's run may name it, and a member's run must name it as root's did.
# Sets syms[TOOL.COLUMN] to what it found.
symcheck() {
	local f=$tmp/$1.$2 distinct missing progs=$tmp/$1.root.names
	stack_names "$1" "$f.out" | sort -u >"$f.names"
	[ "$2" = root ] && progs=$f.names
	grep -E '^bpf_prog_[0-9a-f]{16}_' "$progs" 2>/dev/null | sort -m - "$tmp/kallsyms" >"$f.known"
	distinct=$(wc -l <"$f.names")
	comm -23 "$f.names" "$f.known" >"$f.missing"
	missing=$(wc -l <"$f.missing")
	syms[$1.$2]="$distinct distinct names$(examples "$f.names"), $missing not in /proc/kallsyms$(examples "$f.missing")"
	[ "$distinct" -ge 3 ] && [ "$missing" -eq 0 ]
}
# examples FILE: " (a, b, c...)", its first lines; nothing when it is empty
examples() {
	[ -s "$1" ] || return 0
	printf ' (%s' "$(head -3 "$1" | paste -sd, - | sed 's/,/, /g')"
	[ "$(wc -l <"$1")" -le 3 ] || printf '...'
	printf ')'
}
is_stack_tool() { [[ " ${stack_tools[*]} " == *" $1 "* ]]; }

# run COLUMN TOOL STOP ARGS: the tool as the column says; its output in
# $tmp/TOOL.COLUMN.{out,err}; sets works[TOOL.COLUMN] (0 or 1) and
# reason[TOOL.COLUMN]. A tool works when it ended with status 0 (or was
# stopped by the SIGINT that STOP asks for), printed something, and
# printed no error line. A stopped run that printed nothing at all may
# have been stopped while it still loaded (TCG is slow): it gets three
# times as long once more.
run() {
	local col=$1 name=$2 stop=$3 args=$4 user=alice limit f try t0 line
	f=$tmp/$name.$col
	[ "$col" = root ] && user=root
	limit=$stop
	[ "$stop" = - ] && limit=15
	for try in 1 2; do
		t0=$SECONDS
		as "$user" "timeout -s INT $limit ${launcher[$col]}$sbin/$name $args"
		mv "$tmp/out" "$f.out"
		mv "$tmp/err" "$f.err"
		echo "$rc $((SECONDS - t0))" >"$f.rc"
		if [ "$try" -eq 2 ] || [ "$stop" = - ] || [ "$rc" -ne 124 ] || [ -s "$f.out" ] ||
			errors "$f.err" >/dev/null; then
			break
		fi
		limit=$((stop * 3))
	done
	works[$name.$col]=1
	line=$(errors "$f.err" | head -1)
	if [ -n "$line" ]; then
		reason[$name.$col]=$(shorten <<<"$line")
	elif [ "$rc" -eq 124 ] && [ "$stop" = - ]; then
		reason[$name.$col]="did not end within $limit s"
	elif [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; then
		reason[$name.$col]="exit status $rc$(head -1 "$f.err" | shorten | sed 's/^./: &/')"
	elif [ ! -s "$f.out" ]; then
		reason[$name.$col]="no output (status $rc)"
	elif is_stack_tool "$name" && ! symcheck "$name" "$col"; then
		reason[$name.$col]="kernel stacks misnamed: ${syms[$name.$col]}"
	else
		works[$name.$col]=0
		reason[$name.$col]=""
	fi
}

# --- the runs ------------------------------------------------------------------------
# root's names of kernel functions, as root reads /proc/kallsyms
awk '{ print $3 }' /proc/kallsyms | sort -u >"$tmp/kallsyms"
names=()
for entry in "${tools[@]}"; do
	read -r name stop args <<<"$entry"
	args=${args//@PID@/$server}
	names+=("$name")
	for col in "${columns[@]}"; do
		if [ "$col" != root ] && [ "${works[$name.root]}" -ne 0 ]; then
			works[$name.$col]=-
			reason[$name.$col]=""
			continue
		fi
		run "$col" "$name" "$stop" "$args"
	done
	for col in "${columns[@]}"; do
		[ -f "$tmp/$name.$col.rc" ] || continue
		read -r status secs <"$tmp/$name.$col.rc"
		echo "$col: status $status, $secs s, $(wc -l <"$tmp/$name.$col.out") lines"
	done | paste -sd';' - | sed "s/;/; /g; s|^|$name${args:+ $args}: |" | diag
done

# --- the table -------------------------------------------------------------------------
cell() {
	case ${works[$1]} in
	0) echo yes ;;
	1) echo no ;;
	*) echo - ;;
	esac
}
# why TOOL: root's reason when root fails; else the members' reasons.
why() {
	local t=$1
	if [ "${works[$t.root]}" -ne 0 ]; then
		echo "root: ${reason[$t.root]}"
	elif [ "${works[$t.trace]}" -ne 0 ] && [ "${works[$t.bpf]}" -ne 0 ] &&
		[ "${reason[$t.trace]}" = "${reason[$t.bpf]}" ]; then
		echo "${reason[$t.bpf]}"
	else
		[ "${works[$t.trace]}" -eq 0 ] || printf 'trace: %s' "${reason[$t.trace]}"
		[ "${works[$t.trace]}" -eq 0 ] || [ "${works[$t.bpf]}" -eq 0 ] || printf '; '
		[ "${works[$t.bpf]}" -eq 0 ] || printf 'bpf(): %s' "${reason[$t.bpf]}"
		echo
	fi
}
table() {
	echo "| tool | root | trace grant | bpf() grant | why not |"
	echo "| --- | --- | --- | --- | --- |"
	for name in "${names[@]}"; do
		echo "| $name | $(cell "$name.root") | $(cell "$name.trace") | $(cell "$name.bpf") | $(why "$name") |"
	done
}
table | diag
if [ -n "${LIBBPF_TOOLS_MD:-}" ]; then
	{
		echo "libbpf-tools 0.26 on $(uname -r): root, alice through \`bpf-run --scope trace\`, alice through \`bpf-run\`"
		echo
		table
	} >"$LIBBPF_TOOLS_MD"
fi

# --- TAP --------------------------------------------------------------------------------
# show TOOL.COLUMN: what went wrong in a run: its first error lines, and
# the verifier's last word when a program did not load
show() {
	errors "$tmp/$1.err" | head -3 | diag
	grep -B2 -- '-- END PROG LOAD LOG --' "$tmp/$1.err" | head -2 | diag
}

for name in "${names[@]}"; do
	if [ "${works[$name.root]}" -eq 0 ]; then
		tap "${works[$name.trace]}" "$name: alice through bpf-run --scope trace runs it as root does"
		[ "${works[$name.trace]}" -eq 0 ] || show "$name.trace"
	else
		tap 0 "$name # SKIP root cannot run it here: ${reason[$name.root]}"
		show "$name.root"
	fi
done

# The plain grant: a tool that needs more than bpf() fails at a gate
# outside it: EACCES from perf_event_open() (kprobe, uprobe, BPF-output
# events on every CPU) or from tracefs (a tracepoint's id), or kernel
# stacks that /proc/kallsyms, zeros to alice, cannot name; never EPERM
# from bpf() itself.
for name in "${names[@]}"; do
	[ "${works[$name.root]}" -eq 0 ] || continue
	if [ "${works[$name.bpf]}" -eq 0 ]; then
		tap 0 "$name: alice through plain bpf-run runs it too (it needs bpf() alone)"
		continue
	fi
	f=$tmp/$name.bpf.err
	gate=$(grep -Ei 'perf|tracepoint|tracing|kprobe|uprobe|kallsyms' "$f" |
		grep -Ei 'permission denied|EACCES|-13\b' | head -1)
	if grep -Eqi 'not permitted|EPERM' "$f"; then
		gate=
	elif [ -z "$gate" ] && is_stack_tool "$name" && [ -n "${syms[$name.bpf]:-}" ]; then
		gate="kernel stacks misnamed: ${syms[$name.bpf]}"
	fi
	[ -n "$gate" ]
	tap $? "$name: alice through plain bpf-run fails at a gate outside bpf(): $(shorten <<<"${gate:-${reason[$name.bpf]}}")"
	[ -n "$gate" ] || show "$name.bpf"
done

# Kernel stacks: named through --scope trace as root names them; not
# through the plain grant.
for name in "${stack_tools[@]}"; do
	if [ "${works[$name.root]}" -ne 0 ]; then
		tap 0 "$name kernel stacks # SKIP root cannot run it here: ${reason[$name.root]}"
		continue
	fi
	symcheck "$name" root
	diag <<<"$name as root: ${syms[$name.root]}"
	symcheck "$name" trace
	tap $? "$name: alice through bpf-run --scope trace prints kernel stacks that root's /proc/kallsyms names: ${syms[$name.trace]}"
	! symcheck "$name" bpf
	tap $? "$name: alice through plain bpf-run prints kernel stacks /proc/kallsyms cannot name: ${syms[$name.bpf]}"
done

echo "1..$n"
diag <<<"libbpf_tools: ${#names[@]} tools, $((SECONDS - start)) s"
