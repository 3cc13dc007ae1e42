# shellcheck shell=bash
# Sourced by apt_tools.sh and scopes.sh in the Debian guest, after tap.sh:
# a member's bpftool listings against root's. Uses $bpftool and $tmp.
# shellcheck disable=SC2154 # bpftool, tmp: the suite's; rc: as() sets it

# root_links_start: root runs runqlat, whose tp_btf links give "link show"
# something to list; root_links_stop ends it.
root_links_start() {
	/usr/sbin/runqlat 60 1 >/dev/null 2>&1 &
	runqlat=$!
	for _ in $(seq 100); do
		[ -n "$("$bpftool" link show)" ] && break
		sleep 0.1
	done
}
root_links_stop() {
	kill "$runqlat"
	wait "$runqlat" 2>/dev/null
}

# listing_matches LAUNCHER ARGS: a TAP line, ok when "bpftool ARGS" run by
# alice through LAUNCHER prints what root's does. Objects come and go
# while the guest runs (systemd loads programs for the units it starts),
# so a listing counts as equal when it matches root's taken just before
# and just after it; three tries.
listing_matches() {
	local launcher=$1 args=$2 ok=1 argv
	read -ra argv <<<"$args"
	for _ in 1 2 3; do
		"$bpftool" "${argv[@]}" >"$tmp/root1" 2>&1
		as alice "$launcher $bpftool $args"
		cp "$tmp/out" "$tmp/alice"
		"$bpftool" "${argv[@]}" >"$tmp/root2" 2>&1
		if [ "$rc" -eq 0 ] && [ -s "$tmp/root1" ] && cmp -s "$tmp/root1" "$tmp/root2" &&
			cmp -s "$tmp/root1" "$tmp/alice"; then
			ok=0
			break
		fi
	done
	[ $ok -eq 0 ] || { diff "$tmp/root1" "$tmp/alice" | diag; diag "$tmp/err"; }
	tap $ok "bpftool $args: alice through $launcher prints what root does ($(wc -l <"$tmp/root1") lines)"
}
