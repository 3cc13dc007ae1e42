#!/bin/sh
# run-unit.sh UNIT [--without-supplementary-groups]
#
# Starts a systemd unit's ExecStart= the way systemd would for the lines
# that matter here: as User=, with SupplementaryGroups=, in a cgroup of
# its own that belongs to that user (Delegate=yes). Prints the program's
# output and exits with its status.
unit=$1

key() {
	sed -n "s/^$1=//p" "$unit" | tail -n 1
}
gid_of() {
	awk -F: -v g="$1" '$1 == g { print $3 }' /etc/group
}

user=$(key User)
uid=$(awk -F: -v u="$user" '$1 == u { print $3 }' /etc/passwd)
gid=$(awk -F: -v u="$user" '$1 == u { print $4 }' /etc/passwd)
[ -n "$uid" ] || { echo "run-unit: no user '$user'"; exit 2; }

list=
if [ "$2" != --without-supplementary-groups ]; then
	for g in $(key SupplementaryGroups); do
		list="$list,$(gid_of "$g")"
	done
fi
groups=${list#,}
groups=${groups:--}

cg=/sys/fs/cgroup/$(basename "$unit" .service).$$
mkdir "$cg" || exit 2
[ "$(key Delegate)" = yes ] && chown -R "$uid:$gid" "$cg"
# $$ is the new shell's own pid; ExecStart= is split into words on purpose.
# shellcheck disable=SC2016,SC2046
sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" \
	setcreds "$uid" "$gid" "$groups" $(key ExecStart)
status=$?
rmdir "$cg"
exit $status
