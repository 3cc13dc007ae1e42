// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/bpf demo: try a bpf() call that needs CAP_BPF, take the grant,
 * try again, give it back, try once more, saying each step in words.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/bpf.h>
#include <linux/bpf_dev.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int lru_map_create(void)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_LRU_HASH;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 16;
	return syscall(__NR_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
}

/* Step @n: create the map; @expect_ok says what should happen. */
static int try_map(int n, int expect_ok)
{
	int fd = lru_map_create();

	printf("%d. bpf(BPF_MAP_CREATE, LRU hash), which needs CAP_BPF: ", n);
	if (fd >= 0) {
		printf("created (fd %d)\n", fd);
		close(fd);
	} else {
		printf("refused: %s\n", strerror(errno));
	}
	return (fd >= 0) == expect_ok ? 0 : 1;
}

static int dev_ioctl(int n, const char *what, unsigned long cmd)
{
	int fd = open("/dev/bpf", O_RDONLY | O_CLOEXEC);

	printf("%d. open /dev/bpf and %s: ", n, what);
	if (fd < 0) {
		printf("cannot open /dev/bpf: %s%s\n", strerror(errno),
		       errno == EACCES ? " (not in group bpf)" : "");
		return -1;
	}
	if (ioctl(fd, cmd, 0)) {
		printf("refused: %s\n", strerror(errno));
		close(fd);
		return -1;
	}
	printf("done\n");
	close(fd);
	return 0;
}

int main(void)
{
	int bad = 0;

	printf("   running as uid %u, gid %u\n", getuid(), getgid());
	bad |= try_map(1, 0);
	if (dev_ioctl(2, "take the grant (BPF_DEV_IOCTL_GET_PERM)",
		      BPF_DEV_IOCTL_GET_PERM)) {
		printf("   without the grant there is nothing more to show\n");
		return 1;
	}
	bad |= try_map(3, 1);
	bad |= dev_ioctl(4, "give the grant back (BPF_DEV_IOCTL_PUT_PERM)",
			 BPF_DEV_IOCTL_PUT_PERM) ? 1 : 0;
	bad |= try_map(5, 0);
	printf("   %s\n", bad ? "UNEXPECTED: see the steps above" :
	       "every step went as /dev/bpf promises");
	return bad;
}
