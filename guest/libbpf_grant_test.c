// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for libbpf_get_bpf_permission() and libbpf_put_bpf_permission().
 *
 * Runs as root in the guest, after apply-dev-rule.sh: /dev/bpf is
 * root:bpf(990) 0440. Each TEST runs in a process of its own, forked by
 * the harness, so it may change its identity or namespaces freely.
 *
 * Build, statically against the patched libbpf (T is the kernel tree, L
 * the libbpf OUTPUT directory):
 *
 *   gcc -static -O2 -Wall -I$T/tools/testing/selftests -I$T/tools/lib \
 *       -I$T/tools/include/uapi libbpf_grant_test.c $L/libbpf.a \
 *       -lelf -lz -lzstd -o libbpf_grant_test
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kselftest_harness.h"

#ifndef BPF_DEV_IOCTL_GET_PERM
#define BPF_DEV_IOCTL_GET_PERM	_IO(0xBF, 0x01)
#endif

#define GID_BPF		990	/* group "bpf", may open /dev/bpf */
#define UID_ALICE	1000	/* in group bpf */
#define UID_BOB		1001	/* not in group bpf */

/* Becomes @uid (gid @uid), with or without group bpf. */
static int become(uid_t uid, bool in_bpf_group)
{
	const gid_t groups[] = { GID_BPF };

	if (setgroups(in_bpf_group ? 1 : 0, groups) ||
	    setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -errno;
	return 0;
}

/*
 * Creating an LRU hash map needs CAP_BPF (and unprivileged_bpf_disabled,
 * 2 by default, refuses unprivileged bpf() anyway). Returns 0 or -errno.
 */
static int try_lru_map(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_LRU_HASH, NULL, 4, 4, 1, NULL);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Number of open file descriptors, or -1. */
static int count_fds(void)
{
	struct dirent *de;
	int n = 0;
	DIR *dir;

	dir = opendir("/proc/self/fd");
	if (!dir)
		return -1;
	while ((de = readdir(dir)))
		if (de->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

/* Silences libbpf's expected warnings in the failure tests. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

TEST(member_without_grant_is_refused)
{
	ASSERT_EQ(0, become(UID_ALICE, true));
	EXPECT_EQ(-EPERM, try_lru_map());
}

TEST(member_get_succeeds)
{
	ASSERT_EQ(0, become(UID_ALICE, true));
	ASSERT_EQ(-EPERM, try_lru_map()) TH_LOG("privileged before the grant?");
	ASSERT_TRUE(libbpf_get_bpf_permission())
		TH_LOG("errno %d (%s)", errno, strerror(errno));
	EXPECT_EQ(0, try_lru_map());
}

TEST(non_member_get_fails_with_eacces)
{
	bool ok;

	libbpf_set_print(quiet);
	ASSERT_EQ(0, become(UID_BOB, false));
	errno = 0;
	ok = libbpf_get_bpf_permission();
	EXPECT_FALSE(ok);
	EXPECT_EQ(EACCES, errno) TH_LOG("errno %d (%s)", errno, strerror(errno));
}

TEST(non_member_get_leaks_no_fd)
{
	int before, after;

	libbpf_set_print(quiet);
	ASSERT_EQ(0, become(UID_BOB, false));
	before = count_fds();
	ASSERT_LT(0, before);
	ASSERT_FALSE(libbpf_get_bpf_permission());
	after = count_fds();
	EXPECT_EQ(before, after);
}

TEST(put_revokes)
{
	ASSERT_EQ(0, become(UID_ALICE, true));
	ASSERT_TRUE(libbpf_get_bpf_permission());
	ASSERT_EQ(0, try_lru_map());
	errno = 0;
	libbpf_put_bpf_permission();
	ASSERT_EQ(0, errno) TH_LOG("put failed: %s", strerror(errno));
	EXPECT_EQ(-EPERM, try_lru_map());
}

/*
 * Root with CAP_SYS_ADMIN in the initial user namespace needs no grant,
 * and libbpf must not use /dev/bpf for it. In a private mount namespace,
 * /dev/null is bind-mounted over /dev/bpf: any use of the node now fails
 * with ENOTTY, so success shows the node was not used.
 */
TEST(root_succeeds_without_node)
{
	int fd;

	ASSERT_EQ(0, (int)geteuid());
	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	ASSERT_EQ(0, mount("/dev/null", LIBBPF_DEV_BPF, NULL, MS_BIND, NULL));

	/* The node is unusable now. */
	fd = open(LIBBPF_DEV_BPF, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(-1, ioctl(fd, BPF_DEV_IOCTL_GET_PERM, 0));
	ASSERT_EQ(ENOTTY, errno);
	close(fd);

	EXPECT_TRUE(libbpf_get_bpf_permission())
		TH_LOG("errno %d (%s)", errno, strerror(errno));
}

/*
 * Root in a new user namespace has every capability there, but none
 * over bpf(): libbpf must ask /dev/bpf, and the kernel refuses the grant
 * outside the initial user namespace. With uid 0 mapped to root, the node
 * opens, so EPERM shows that GET_PERM was issued and refused.
 */
TEST(root_in_user_namespace_is_not_privileged)
{
	bool ok;
	int fd;

	libbpf_set_print(quiet);
	ASSERT_EQ(0, (int)geteuid());
	if (unshare(CLONE_NEWUSER))
		SKIP(return, "no user namespaces: %s", strerror(errno));
	fd = open("/proc/self/uid_map", O_WRONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(6, write(fd, "0 0 1\n", 6));
	close(fd);

	errno = 0;
	ok = libbpf_get_bpf_permission();
	EXPECT_FALSE(ok);
	EXPECT_EQ(EPERM, errno) TH_LOG("errno %d (%s)", errno, strerror(errno));
}

TEST_HARNESS_MAIN
