# shellcheck shell=bash
# Sourced by deploy.sh and demo.sh in the Debian guest: starting a unit and
# reading its journal, with systemctl and journalctl as an administrator
# would. (No --wait or --pipe: they need D-Bus, which the guest has not.)

# The journal's current cursor.
cursor() {
	journalctl -n1 -o cat --show-cursor | sed -n 's/^-- cursor: //p'
}

# unit_log UNIT CURSOR PATTERN: the unit's journal lines after CURSOR, once
# one matches PATTERN (journald reads a service's output asynchronously).
unit_log() {
	local _ out
	for _ in $(seq 40); do
		journalctl --sync 2>/dev/null
		out=$(journalctl -b -o cat -u "$1" --after-cursor="$2")
		grep -q "$3" <<<"$out" && break
		sleep 0.25
	done
	printf '%s\n' "$out"
}

# start_unit UNIT PATTERN: starts a oneshot unit, which returns once it has
# run; prints its journal lines up to one matching PATTERN and its result.
# The status is the unit's: 0 if it succeeded.
start_unit() {
	local c result
	c=$(cursor)
	systemctl start "$1"
	result=$(systemctl show -P Result "$1")
	unit_log "$1" "$c" "$2"
	echo "result=$result"
	[ "$result" = success ]
}

# without_groups UNIT: a drop-in that empties the unit's
# SupplementaryGroups=; with_groups UNIT removes it again.
without_groups() {
	mkdir -p "/run/systemd/system/$1.d"
	printf '[Service]\nSupplementaryGroups=\n' >"/run/systemd/system/$1.d/no-groups.conf"
	systemctl daemon-reload
}
with_groups() {
	rm -r "/run/systemd/system/$1.d"
	systemctl daemon-reload
}
