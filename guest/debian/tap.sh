# shellcheck shell=bash
# Sourced by the Debian guest's bash suites (deploy.sh, apt_tools.sh,
# apparmor.sh): their TAP lines, and running a command as a user.

n=0
# tap STATUS DESCRIPTION...: "ok N ..." when STATUS is 0, else "not ok N ...".
tap() {
	local status=$1
	shift
	n=$((n + 1))
	if [ "$status" -eq 0 ]; then echo "ok $n $*"; else echo "not ok $n $*"; fi
}

# diag [FILE...]: the files, or standard input, as TAP comments.
# shellcheck disable=SC2120 # FILE is optional
diag() { sed 's/^/# /' "$@"; }

# as USER COMMAND: COMMAND run by su as USER, its stdout in $tmp/out and
# stderr in $tmp/err (the suite makes $tmp); sets $rc, which the suite reads.
# shellcheck disable=SC2154,SC2034
as() {
	su "$1" -c "$2" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
