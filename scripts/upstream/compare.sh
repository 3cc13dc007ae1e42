# shellcheck shell=bash
# Sourced by scripts/upstream.sh: reading the runs out of the console logs
# and comparing them, root with the grant and without it for the BPF
# suites, the patched kernel with the unpatched one for the kselftests.
# Uses the exceptions and folders that upstream.sh sets.

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
