#!/bin/sh
# bpf-run (deploy/bpf-run.c) in the busybox guest: alice (group bpf)
# starts unmodified programs with the grant, bob cannot, and each refusal
# names its cause. Run as root, with /dev/bpf root:bpf 0440. Prints TAP.

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
tap() {
	_status=$1
	shift
	n=$((n + 1))
	if [ "$_status" -eq 0 ]; then
		echo "ok $n $*"
	else
		echo "not ok $n $*"
		sed 's/^/# /' "$tmp/out" "$tmp/err"
	fi
}
# as USER COMMAND: stdout and stderr to $tmp/out, $tmp/err; sets $rc.
as() {
	su "$1" -c "$2" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
bpf_dev_line() { grep '^BpfDev:' "$tmp/out" | tr -d ' \t'; }

echo "1..14"
as alice "bpf-run cat /proc/self/status"
[ "$rc" -eq 0 ] && [ "$(bpf_dev_line)" = BpfDev:1 ]
tap $? "alice: bpf-run cat: busybox's cat starts holding the grant"

as alice "cat /proc/self/status"
[ "$rc" -eq 0 ] && [ "$(bpf_dev_line)" = BpfDev:0 ]
tap $? "alice: cat without bpf-run holds nothing"

as alice "bpf-run sh -c 'cat /proc/self/status'"
[ "$rc" -eq 0 ] && [ "$(bpf_dev_line)" = BpfDev:0 ]
tap $? "alice: what the started program forks and executes holds nothing"

as alice "bpf-run sh -c 'exit 7'"
[ "$rc" -eq 7 ]
tap $? "alice: bpf-run exits with the program's status (got $rc)"

as alice "bpf-run /nonexistent/program"
[ "$rc" -eq 127 ] && grep -q "No such file" "$tmp/err"
tap $? "alice: a program that does not exist: status 127 (got $rc)"

as alice "bpf-run /etc/passwd"
[ "$rc" -eq 126 ]
tap $? "alice: a file that cannot be executed: status 126 (got $rc)"

as bob "bpf-run true"
[ "$rc" -eq 125 ] && grep -q "only members of group 'bpf'.*usermod -aG bpf" "$tmp/err"
tap $? "bob (not in group bpf): status 125, told to join group bpf"

# The kernel gives a program on a nosuid mount, or a script, no grant.
chmod 0755 "$tmp"
mkdir "$tmp/nosuid"
mount -t tmpfs -o nosuid,mode=0755 tmpfs "$tmp/nosuid"
cp /bin/busybox "$tmp/nosuid/true"
as alice "bpf-run $tmp/nosuid/true"
[ "$rc" -eq 125 ] && grep -q "$tmp/nosuid/true is on a file system mounted nosuid" "$tmp/err"
tap $? "alice: a program on a nosuid mount: status 125, told that nosuid forbids it"
umount "$tmp/nosuid"
printf '#!/bin/sh\nexit 0\n' >"$tmp/script"
chmod 0755 "$tmp/script"
as alice "bpf-run $tmp/script"
[ "$rc" -eq 125 ] && grep -q "$tmp/script is a script.*run its interpreter" "$tmp/err"
tap $? "alice: a script: status 125, told to run its interpreter instead"
printf 'exit 0\n' >"$tmp/noformat"
chmod 0755 "$tmp/noformat"
as alice "bpf-run $tmp/noformat"
[ "$rc" -eq 126 ] && grep -q "Exec format error" "$tmp/err"
tap $? "alice: a file of no known format: status 126, not run with /bin/sh holding the grant"

as alice "setpriv --nnp bpf-run true"
[ "$rc" -eq 125 ] && grep -q "no_new_privs is set" "$tmp/err"
tap $? "alice under no_new_privs: status 125, told that no_new_privs forbids it"

as alice "bpf-run --scope nosuch true"
[ "$rc" -eq 125 ] && grep -q "no /dev/bpf-nosuch: no scope 'nosuch' is defined" "$tmp/err"
tap $? "alice: bpf-run --scope nosuch: status 125, told the kernel has no such scope"

as alice "bpf-run --scope ../bpf true"
[ "$rc" -eq 125 ] && grep -q "'../bpf' is not a scope name" "$tmp/err"
tap $? "alice: bpf-run --scope ../bpf: status 125, not a scope name"

as alice "bpf-run --help"
[ "$rc" -eq 0 ] && grep -q "^Usage: bpf-run" "$tmp/out"
tap $? "bpf-run --help"
