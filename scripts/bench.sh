#!/usr/bin/env bash
# make bench: the cost of the /dev/bpf grant beside root, CAP_BPF and a
# BPF token, measured in one boot under -icount; what root pays on the
# patched kernel while nobody has taken the grant, against the unpatched
# tree built with the same config; and the footprint. Writes
# docs/benchmarks.md.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ "$KCONFIG_FLAVOUR" = test ] || die "make bench measures the test config"
report=$REPO/docs/benchmarks.md

# --- the unpatched kernel: tag base, the same fragment without BPF_DEV ----
build_base_kernel

# --- the boots ---------------------------------------------------------------
# The patched kernel twice: the whole benchmark, then root's loops alone
# in a boot like the unpatched kernel's (same command line, same guest).
bench_log=$LOGS/console-bench.log
again_log=$LOGS/console-bench-again.log
base_log=$LOGS/console-bench-base.log
DEVBPF_CONSOLE_LOG=$bench_log "$REPO/scripts/boot.sh" busybox bench | grep -E '^(BENCH|SCOPED|UNUSED|FOOTPRINT)' >&2
DEVBPF_CONSOLE_LOG=$again_log "$REPO/scripts/boot.sh" busybox bench_base >/dev/null
DEVBPF_CONSOLE_LOG=$base_log DEVBPF_BOOT_KERNEL=$BASE_BZIMAGE \
	"$REPO/scripts/boot.sh" busybox bench_base | grep -E '^(UNUSED|FOOTPRINT)' >&2
grep -q '^BENCH ' "$bench_log" || die "the benchmark printed nothing (see $bench_log)"
grep -q '^UNUSED ' "$base_log" || die "the unpatched kernel's boot printed nothing (see $base_log)"

footprint() { # footprint LOG KEY
	awk -v k="$2" '$1 == "FOOTPRINT" && $2 == k { print $3 }' "$1"
}
bloat=$("$TREE/scripts/bloat-o-meter" "$BASE_BUILD/vmlinux" "$BUILD/vmlinux")
growth=$(printf '%s\n' "$bloat" | sed -n 's/^add\/remove:.*(\(-\?[0-9]*\))$/\1/p')

{
	echo "# Benchmarks: the /dev/bpf grant beside root, CAP_BPF and BPF token"
	echo
	echo "Written by \`make bench\` on $(date -u +%Y-%m-%d) from the guest kernel"
	echo "$(footprint "$bench_log" kernel) (Debian $SOURCE_PKG $(source_version) + patches/, test config)."
	echo "Machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1);"
	echo "QEMU $(qemu-system-x86_64 --version | sed -n '1s/.*version \([^ ]*\).*/\1/p'), TCG, \`-icount shift=0,sleep=off\`, 2 vCPUs:"
	echo "the guest clock counts instructions, not host time, so the load on the"
	echo "host does not matter. Figures still move by a few tenths of a percent"
	echo "from boot to boot (the guest's random seeds differ), and only the ratios"
	echo "between identities in the same boot carry meaning."
	echo
	echo "Each loop runs 9 times per identity, the identities taking turns (so that"
	echo "what drifts during a boot, such as ID allocation and the JIT's memory"
	echo "packs, weighs on all alike), each run after the previous run's deferred"
	echo "frees settled. Shown: the median in (instruction-clock) ns per operation,"
	echo "and the ratio to root in the same boot. Identities, in \`guest/bench/bench.c\`:"
	echo "root; uid 1000 with CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN as ambient"
	echo "capabilities (caps); uid 1000 in group bpf holding the /dev/bpf grant"
	echo "(grant); uid 1000 as root of its own user namespace passing a BPF token"
	echo "from a bpffs that root delegated to it (token). No scope exists yet in"
	echo "the boot: their checks are a jump over them."
	echo
	awk '
	$1 == "BENCH" && $3 != "setup" { v[$2, $3] = $4; why[$2, $3] = $0
		if ($4 != "NA" && ($7 - $6) / $4 > spread[$3]) spread[$3] = ($7 - $6) / $4
		if (!($3 in order)) { order[$3] = ++n; name[n] = $3 } }
	$1 == "BENCH" && $3 == "setup" { setup = setup "\n- " $0 }
	function cell(id, l) {
		if (v[id, l] == "NA") {
			sub(/^BENCH [^ ]+ [^ ]+ NA /, "", why[id, l])
			return "n/a (" why[id, l] ")"
		}
		if (l == "acquire")
			return sprintf("%s ns (%.3f of token)", v[id, l], v[id, l] / v["token", l])
		if (l ~ /^get_put_/)
			return sprintf("%s ns (%.3f of get_put_0)", v[id, l], v[id, l] / v[id, "get_put_0"])
		return sprintf("%s ns (%.3f)", v[id, l], v[id, l] / v["root", l])
	}
	function verdict(ok) { return ok ? "met" : "MISSED" }
	END {
		print "| loop | root | caps | grant | token |"
		print "| --- | --- | --- | --- | --- |"
		for (i = 1; i <= n; i++)
			printf "| %s | %s | %s | %s | %s |\n", name[i], cell("root", name[i]),
				cell("caps", name[i]), cell("grant", name[i]), cell("token", name[i])
		if (setup != "")
			print "\nIdentities that could not be set up:" setup
		print ""
		print "get_put_N: PUT_PERM + GET_PERM on a file kept open, with N idle"
		print "processes (forked by root, waiting in pause()) on the machine; libbpf"
		print "and bpftool pay it around each piece of work. Its ratio is to the same"
		print "loop with none."
		print ""
		print "Targets: grant / root <= 1.02 for each loop root runs; acquiring the"
		print "grant at most 0.85 of a token; get_put_N at most 1.05 of get_put_0."
		print ""
		for (i = 1; i <= n; i++) {
			l = name[i]
			if (v["grant", l] == "" || v["grant", l] == "NA") {
				printf "- %s: no figure for the grant: MISSED\n", l
			} else if (l == "acquire") {
				r = v["grant", l] / v["token", l]
				printf "- %s: grant / token = %.3f: %s\n", l, r, verdict(r <= 0.85)
			} else if (l ~ /^get_put_/) {
				r = v["grant", l] / v["grant", "get_put_0"]
				printf "- %s: %s / get_put_0 = %.3f: %s\n", l, l, r, verdict(r <= 1.05)
			} else {
				r = v["grant", l] / v["root", l]
				printf "- %s: grant / root = %.3f: %s (the 9 runs of one identity spread over up to %.1f%% of their median)\n",
					l, r, verdict(r <= 1.02), 100 * spread[l]
			}
		}
	}' "$bench_log"
	echo
	echo "## With a scope defined"
	echo
	echo "The same boot, after the first three: the benchmark makes a scope that"
	echo "lets everything through (/dev/bpf-bench), which turns the scopes' checks"
	echo "on for every task, and runs root, the grant, and uid 1000 holding the"
	echo "scope's grant (scope), whose checks therefore run on every call and pass."
	echo
	awk '
	$1 == "SCOPED" && $3 != "setup" { v[$2, $3] = $4; if (!($3 in o)) { o[$3] = ++n; name[n] = $3 } }
	$1 == "BENCH" && $3 != "setup" { before[$2, $3] = $4 }
	END {
		print "| loop | root | grant | scope | root - root without scopes | grant - grant without | scope - grant |"
		print "| --- | --- | --- | --- | --- | --- | --- |"
		for (i = 1; i <= n; i++) {
			l = name[i]
			d1 = v["root", l] == "NA" || before["root", l] == "NA" ? "" : sprintf("%+.2f", v["root", l] - before["root", l])
			d2 = v["grant", l] == "NA" || before["grant", l] == "NA" ? "" : sprintf("%+.2f", v["grant", l] - before["grant", l])
			d3 = v["scope", l] == "NA" || v["grant", l] == "NA" ? "" : sprintf("%+.2f", v["scope", l] - v["grant", l])
			printf "| %s | %s | %s | %s | %s | %s | %s |\n", l, v["root", l], v["grant", l], v["scope", l], d1, d2, d3
		}
		print ""
		print "prog_test_run and so_attach_bpf use a program through its fd, which"
		print "the scope checks: the program must be the scope'"'"'s (it is: the holder"
		print "loaded it), whoever uses it. scope - grant is what that check costs."
		print ""
		print "Targets: taking the scope (acquire) costs no more than a BPF token;"
		print "a scope'"'"'s holder makes maps and loads programs at most 1.05 of the"
		print "full grant'"'"'s cost."
		if (v["scope", "acquire"] != "" && before["token", "acquire"] != "") {
			r = v["scope", "acquire"] / before["token", "acquire"]
			printf "- acquire: scope / token = %.3f: %s\n", r, r <= 1 ? "met" : "MISSED"
		} else
			print "- acquire: not measured: MISSED"
		split("map_create array_create prog_load", m, " ")
		for (i = 1; i in m; i++) {
			l = m[i]
			if (v["scope", l] == "" || v["scope", l] == "NA" || v["grant", l] == "NA") {
				printf "- %s: not measured: MISSED\n", l
				continue
			}
			r = v["scope", l] / v["grant", l]
			printf "- %s: scope / grant = %.3f: %s\n", l, r, r <= 1.05 ? "met" : "MISSED"
		}
	}' "$bench_log"
	echo
	echo "## Root, on a kernel where no task has taken the grant"
	echo
	echo "The first thing each boot runs: root's loops alone, before any task"
	echo "asked for the grant, on the patched kernel and on the unpatched tree"
	echo "(tag \`base\`) built with the same fragment less \`CONFIG_BPF_DEV\`. In"
	echo "guest instructions per operation (under \`-icount shift=0\` one"
	echo "instruction is one ns of the guest clock), the median of 9 runs."
	echo
	echo "\"patched\" comes from a boot with the same command line and initramfs"
	echo "as the unpatched kernel's. The patched kernel's other boot, the full"
	echo "benchmark's (another command line), shows how far a loop moves with"
	echo "the boot alone: where the two agree, the difference is exact; where"
	echo "they do not, the loop allocates memory, and the kernel's layout and"
	echo "the boot decide part of its cost."
	echo
	awk '
	$1 == "UNUSED" && $2 == "root" && $4 != "NA" {
		if (FILENAME == ARGV[1]) { base[$3] = $4; order[++n] = $3 }
		else if (FILENAME == ARGV[2]) patched[$3] = $4
		else again[$3] = $4
	}
	END {
		print "| loop | unpatched | patched | patched, other boot | patched - unpatched |"
		print "| --- | --- | --- | --- | --- |"
		for (i = 1; i <= n; i++) {
			l = order[i]
			printf "| %s | %s | %s | %s | %+.2f%s |\n", l, base[l], patched[l], again[l],
				patched[l] - base[l], patched[l] == again[l] ? " (exact)" : ""
		}
		print ""
		print "Targets, patched - unpatched: at most +4 instructions for array_create,"
		print "+20 for prog_load, +0 for map_next_id."
		print ""
		split("array_create 4 prog_load 20 map_next_id 0", t, " ")
		for (i = 1; i in t; i += 2) {
			l = t[i]
			if (!(l in base) || !(l in patched)) {
				printf "- %s: not measured: MISSED\n", l
				continue
			}
			d = patched[l] - base[l]
			printf "- %s: %+.2f: %s\n", l, d, d <= t[i + 1] ? "met" : "MISSED"
		}
	}' "$base_log" "$again_log" "$bench_log"
	echo
	echo "## Footprint"
	echo
	echo "The unpatched tree (tag \`base\`) built with the same fragment, less"
	echo "\`CONFIG_BPF_DEV\`, against the patched one:"
	echo
	echo "| | unpatched | patched |"
	echo "| --- | --- | --- |"
	echo "| \`task_struct\` slab object size | $(footprint "$base_log" task_struct) B | $(footprint "$bench_log" task_struct) B |"
	echo "| vmlinux growth (bloat-o-meter) | | $growth B |"
	echo
	echo '```'
	printf '%s\n' "$bloat"
	echo '```'
} >"$report"
msg "wrote ${report#"$REPO"/}"
