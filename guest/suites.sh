#!/bin/sh
# suites.sh SUITE...: the test run in the guest. Every suite prints TAP;
# the host counts the results. Suites:
#   kselftest  tools/testing/selftests/bpf_dev, as root dropping to users
#   libbpf     libbpf_get/put_bpf_permission()
#   bpftool    bpftool as root, alice (group bpf) and bob
#   launcher   bpf-run: unmodified programs started with the grant
#   deploy     the deployment files under the real udev, sysusers, systemd
#   apt_tools  Debian's own bpftool and libbpf-tools, unmodified
#   libbpf_tools  all 61 libbpf-tools as root, through bpf-run --scope trace, through bpf-run
#   scopes     the package's scopes: ipacct through netacct, bpftool through inventory
#   apparmor   AppArmor profiles decide who takes the grant, and its uses
#   stress     GET/PUT, fork and execve racing across threads and processes
#   fuzz       the ioctl, and bpf() under the grant
# Run as root, with /dev/bpf root:bpf 0440.

echo "# kernel $(uname -r); LSMs $(cat /sys/kernel/security/lsm 2>/dev/null);" \
	"yama ptrace_scope $(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo -);" \
	"unprivileged_bpf_disabled $(cat /proc/sys/kernel/unprivileged_bpf_disabled)"
for suite in "$@"; do
	case $suite in
	kselftest)
		for t in dev_bpf_test exec_test ptrace_test setid_test lsm_audit_test attach_test trace_test uprobe_write_test scope_test scope_use_test; do
			echo "devbpf: kselftest bpf_dev: $t"
			"$t"
		done
		;;
	libbpf)
		echo "devbpf: libbpf_get/put_bpf_permission() (as root, dropping to alice and bob)"
		libbpf_grant_test
		;;
	bpftool)
		echo "devbpf: bpftool as root, as alice (group bpf) and as bob"
		bpftool.sh
		;;
	launcher)
		echo "devbpf: bpf-run as alice (group bpf) and bob"
		launcher.sh
		;;
	deploy)
		echo "devbpf: the deployment files under udev, systemd-sysusers and systemd"
		deploy.sh
		;;
	apt_tools)
		echo "devbpf: Debian's bpftool and libbpf-tools as root, alice through bpf-run, alice, bob"
		apt_tools.sh
		;;
	libbpf_tools)
		echo "devbpf: every libbpf-tool as root, as alice through bpf-run --scope trace and through bpf-run"
		libbpf_tools.sh
		;;
	scopes)
		echo "devbpf: the scopes netacct (ipacct-netacct.service) and inventory (bpftool as alice)"
		scopes.sh
		;;
	apparmor)
		echo "devbpf: AppArmor profiles (apparmor_parser, aa-exec) and the grant, as root and alice"
		apparmor.sh
		;;
	stress)
		echo "devbpf: race stress, as alice (group bpf)"
		su alice -c "/usr/lib/devbpf/stress 10"
		;;
	fuzz)
		echo "devbpf: fuzzing, as alice (group bpf)"
		su alice -c "/usr/lib/devbpf/fuzz $(date +%s) 10"
		;;
	*)
		echo "not ok 1 devbpf: unknown suite '$suite'"
		;;
	esac
done
