# shellcheck shell=bash
# Sourced by the Debian guest's bash suites (deploy.sh, apt_tools.sh):
# their TAP lines.

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
