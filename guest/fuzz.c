// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz SEED SECONDS: bounded fuzzing of /dev/bpf's ioctl and, under the
 * grant, of bpf(). Run as a user who may open /dev/bpf. Prints TAP.
 *
 * 1. Every _IOC(dir, type, nr, size) for all four directions, types
 *    0xB0-0xCF, numbers 0-255 and a few sizes, with a few arguments:
 *    only GET_PERM, PUT_PERM and EXEC_PERM with argument 0 may succeed,
 *    a non-zero argument to them gives EINVAL, everything else ENOTTY,
 *    and no call but GET_PERM may leave the caller holding the grant
 *    (EXEC_PERM only arms the next execve(), which the fuzzer never
 *    makes; PUT_PERM after each call disarms it again).
 * 2. Random bpf() commands and attributes under the grant, for a bounded
 *    count and time: afterwards the kernel must not be tainted any more
 *    than before (a WARN or BUG taints it) and the caller must still hold
 *    the grant, which no bpf() command gives back. The host also reads the
 *    kernel log for splats.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/bpf_dev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "grant.h"

static int fuzz_ioctl(int fd, long *calls)
{
	static const unsigned int sizes[] = { 0, 4, 64 };
	unsigned long args[] = { 0, 1, 0 };
	unsigned int dir, type, nr, s, a;
	unsigned long cmd;
	int bad = 0, ret, want, held;

	for (dir = 0; dir < 4; dir++)
	for (type = 0xB0; type <= 0xCF; type++)
	for (nr = 0; nr < 256; nr++)
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		cmd = _IOC(dir, type, nr, sizes[s]);
		args[2] = random() | ((unsigned long)random() << 32);
		for (a = 0; a < 3; a++) {
			ret = ioctl(fd, cmd, args[a]) ? -errno : 0;
			(*calls)++;
			if (cmd == BPF_DEV_IOCTL_GET_PERM ||
			    cmd == BPF_DEV_IOCTL_PUT_PERM ||
			    cmd == BPF_DEV_IOCTL_EXEC_PERM)
				want = args[a] ? -EINVAL : 0;
			else
				want = -ENOTTY;
			if (ret != want) {
				printf("# ioctl %#lx arg %#lx: %d, want %d\n",
				       cmd, args[a], ret, want);
				bad++;
			}
			held = grant_held();
			if (held != (cmd == BPF_DEV_IOCTL_GET_PERM && !ret)) {
				printf("# ioctl %#lx arg %#lx: grant is %s\n", cmd,
				       args[a], held < 0 ? strerror(errno) :
				       held ? "held" : "missing");
				bad++;
			}
			ioctl(fd, BPF_DEV_IOCTL_PUT_PERM, 0);
		}
	}
	return bad;
}

static void fuzz_bpf(long max, time_t deadline, long *calls)
{
	unsigned char attr[sizeof(union bpf_attr) + 16];
	unsigned int i, size;
	int cmd, fd;

	while (*calls < max && time(NULL) < deadline) {
		for (i = 0; i < sizeof(attr); i++)
			attr[i] = random() & 3 ? 0 : random();
		cmd = random() % (__MAX_BPF_CMD + 2);
		size = random() % sizeof(attr);
		fd = syscall(__NR_bpf, cmd, attr, size);
		(*calls)++;
		/* Whatever the call made, no fd is kept (3 is /dev/bpf). */
		for (fd = 4; fd < 64; fd++)
			close(fd);
	}
}

/* /proc/sys/kernel/tainted, or -1 */
static long tainted(void)
{
	FILE *f = fopen("/proc/sys/kernel/tainted", "r");
	long val = -1;

	if (f) {
		if (fscanf(f, "%ld", &val) != 1)
			val = -1;
		fclose(f);
	}
	return val;
}

int main(int argc, char **argv)
{
	unsigned int seed = argc > 1 ? strtoul(argv[1], NULL, 0) : 1;
	int seconds = argc > 2 ? atoi(argv[2]) : 10;
	long ioctls = 0, bpfs = 0, taint_before, taint_after;
	int fd, bad, held;

	setvbuf(stdout, NULL, _IOLBF, 0);
	srandom(seed);
	printf("1..2\n");
	fd = open("/dev/bpf", O_RDONLY | O_CLOEXEC);
	if (fd != 3) {
		printf("not ok 1 fuzz: /dev/bpf should be fd 3, got %d (%s)\n",
		       fd, strerror(errno));
		return 1;
	}
	bad = fuzz_ioctl(fd, &ioctls);
	printf("%sok 1 fuzz ioctl: %ld calls, %d unexpected results\n",
	       bad ? "not " : "", ioctls, bad);

	if (ioctl(fd, BPF_DEV_IOCTL_GET_PERM, 0)) {
		printf("not ok 2 fuzz bpf(): GET_PERM: %s\n", strerror(errno));
		return 1;
	}
	taint_before = tainted();
	fuzz_bpf(200000, time(NULL) + seconds, &bpfs);
	taint_after = tainted();
	held = grant_held();
	printf("%sok 2 fuzz bpf() under the grant: seed %u, %ld calls in at most %d s, tainted %ld -> %ld, grant %s\n",
	       taint_before < 0 || taint_after != taint_before || held != 1 ?
	       "not " : "", seed, bpfs, seconds, taint_before, taint_after,
	       held == 1 ? "still held" : "lost");
	return bad || taint_after != taint_before || held != 1;
}
