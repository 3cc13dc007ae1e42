// SPDX-License-Identifier: GPL-2.0
/*
 * pid1 CMD...: PID 1 of the busybox guest in check mode, between its init
 * and the suites. PID 1 shares its fs_struct with every kernel thread
 * (kernel_init() is started with CLONE_FS), which a count of the sharers
 * of the caller's fs_struct sees: PID 1 takes the grant here, as root may,
 * and prints the result as TAP. Then it runs CMD as its child, reaps
 * whatever else ends up its child, and powers the guest off, as init did.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf_dev.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/reboot.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd, err = 0;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..1\n");
	fd = open("/dev/bpf", O_RDONLY | O_CLOEXEC);
	if (getpid() != 1 || fd < 0 || ioctl(fd, BPF_DEV_IOCTL_GET_PERM, 0))
		err = errno;
	if (fd >= 0)
		ioctl(fd, BPF_DEV_IOCTL_PUT_PERM, 0);
	printf("%sok 1 pid1: PID 1 takes the grant%s%s\n", err ? "not " : "",
	       err ? ": " : "", err ? strerror(err) : "");

	if (argc > 1) {
		pid = fork();
		if (pid == 0) {
			execvp(argv[1], argv + 1);
			_exit(127);
		}
		while (pid > 0 && wait(NULL) != pid)
			;
	}
	sync();
	reboot(RB_AUTOBOOT);
	return 1;
}
