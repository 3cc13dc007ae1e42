// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for libbpf_get_bpf_permission() and libbpf_put_bpf_permission().
 *
 * Runs as root in the guest, where /dev/bpf is root:bpf 0440 (the
 * deployment's udev rule). Each TEST runs in a process of its own, forked
 * by the harness, so it may change its identity or namespaces freely, and
 * starts with libbpf's feature cache empty.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/bpf.h>
#include <linux/bpf_dev.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kselftest_harness.h"

#define UID_ALICE	1000	/* in group bpf */
#define UID_BOB		1001	/* not in group bpf */

/* The ID of group "bpf", which may open /dev/bpf, from /etc/group. */
static gid_t bpf_gid(void)
{
	char line[256];
	gid_t gid = 0;
	FILE *f;

	f = fopen("/etc/group", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "bpf:%*[^:]:%u:", &gid) == 1)
			break;
	fclose(f);
	return gid;
}

/* Becomes @uid (gid @uid), with or without group bpf. */
static int become(uid_t uid, bool in_bpf_group)
{
	const gid_t groups[] = { bpf_gid() };

	if (!groups[0])
		return -ENOENT;
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

/* The calling thread's "BpfDev:" status line: 0, 1, or -1 if absent. */
static int bpf_dev_status(void)
{
	char line[128];
	int val = -1;
	FILE *f;

	f = fopen("/proc/thread-self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "BpfDev: %d", &val) == 1)
			break;
	fclose(f);
	return val;
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
	ASSERT_EQ(0, libbpf_get_bpf_permission())
		TH_LOG("errno %d (%s)", errno, strerror(errno));
	EXPECT_EQ(0, try_lru_map());
	EXPECT_EQ(1, bpf_dev_status());
}

TEST(non_member_get_fails_with_eacces)
{
	libbpf_set_print(quiet);
	ASSERT_EQ(0, become(UID_BOB, false));
	errno = 0;
	EXPECT_EQ(-EACCES, libbpf_get_bpf_permission());
	EXPECT_EQ(EACCES, errno);
}

TEST(non_member_get_leaks_no_fd)
{
	int before, after;

	libbpf_set_print(quiet);
	ASSERT_EQ(0, become(UID_BOB, false));
	before = count_fds();
	ASSERT_LT(0, before);
	ASSERT_GT(0, libbpf_get_bpf_permission());
	after = count_fds();
	EXPECT_EQ(before, after);
}

TEST(put_revokes)
{
	ASSERT_EQ(0, become(UID_ALICE, true));
	ASSERT_EQ(0, libbpf_get_bpf_permission());
	ASSERT_EQ(0, try_lru_map());
	EXPECT_EQ(0, libbpf_put_bpf_permission());
	EXPECT_EQ(-EPERM, try_lru_map());
	EXPECT_EQ(0, bpf_dev_status());
}

/* The grant is held while the file is open, and only then. */
TEST(get_keeps_the_node_open_until_put)
{
	int before;

	ASSERT_EQ(0, become(UID_ALICE, true));
	before = count_fds();
	ASSERT_EQ(0, libbpf_get_bpf_permission());
	EXPECT_EQ(before + 1, count_fds());
	ASSERT_EQ(0, libbpf_put_bpf_permission());
	EXPECT_EQ(before, count_fds());
}

/* Nothing to give back is not an error, and needs no access to the node. */
TEST(put_without_get_succeeds)
{
	ASSERT_EQ(0, become(UID_BOB, false));
	EXPECT_EQ(0, libbpf_put_bpf_permission());
}

static int keep_only_cap_setgid(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

	data[0].permitted = data[0].effective = 1U << CAP_SETGID;
	return syscall(__NR_capset, &hdr, data) ? -errno : 0;
}

/*
 * A thread that drops the group after taking the grant can no longer open
 * the node; put must give the grant back all the same.
 */
TEST(put_after_dropping_the_group)
{
	ASSERT_EQ(0, prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0));
	ASSERT_EQ(0, become(UID_ALICE, true));
	ASSERT_EQ(0, keep_only_cap_setgid());
	ASSERT_EQ(0, libbpf_get_bpf_permission());
	ASSERT_EQ(1, bpf_dev_status());

	ASSERT_EQ(0, setgroups(0, NULL));
	ASSERT_EQ(-1, open(LIBBPF_DEV_BPF, O_RDONLY)) TH_LOG("still opens");
	EXPECT_EQ(0, libbpf_put_bpf_permission());
	EXPECT_EQ(0, bpf_dev_status());
	EXPECT_EQ(-EPERM, try_lru_map());
}

struct map_thread {
	bool get;	/* take the grant first */
	int err;	/* libbpf_get_bpf_permission(), then bpf_map_create() */
	char name[BPF_OBJ_NAME_LEN];	/* the name the kernel kept */
};

/* Creates a map named "feature_cache": libbpf probes for map names first. */
static void *create_named_map(void *arg)
{
	struct map_thread *t = arg;
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd;

	t->err = t->get ? libbpf_get_bpf_permission() : 0;
	if (t->err)
		return NULL;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "feature_cache", 4, 4, 1, NULL);
	if (fd < 0) {
		t->err = -errno;
	} else {
		if (!bpf_map_get_info_by_fd(fd, &info, &len))
			memcpy(t->name, info.name, sizeof(t->name));
		close(fd);
	}
	if (t->get)
		libbpf_put_bpf_permission();
	return NULL;
}

/*
 * libbpf's feature probes are cached per process, the grant is per thread:
 * a probe that failed in a thread without the grant must not degrade the
 * loads of a thread that holds it (here: the map loses its name).
 */
TEST(feature_probes_of_threads_without_grant_do_not_count)
{
	struct map_thread without = { .get = false }, with = { .get = true };
	pthread_t thread;
	FILE *f;
	int unpriv = 0;

	f = fopen("/proc/sys/kernel/unprivileged_bpf_disabled", "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%d", &unpriv));
	fclose(f);
	ASSERT_NE(0, unpriv) TH_LOG("unprivileged bpf() must be off");

	ASSERT_EQ(0, become(UID_ALICE, true));
	ASSERT_EQ(0, pthread_create(&thread, NULL, create_named_map, &without));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(-EPERM, without.err);

	ASSERT_EQ(0, pthread_create(&thread, NULL, create_named_map, &with));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(0, with.err) TH_LOG("%s", strerror(-with.err));
	EXPECT_STREQ("feature_cache", with.name);
}

/*
 * A child that fork() made holds no grant, though it has a copy of the
 * thread's variables and files. Its probes must not count as a holder's:
 * once it takes the grant itself, its loads are not degraded by them.
 */
TEST(forked_child_is_no_holder)
{
	struct map_thread without = { .get = false }, with = { .get = true };
	int status;
	pid_t pid;

	ASSERT_EQ(0, become(UID_ALICE, true));
	ASSERT_EQ(0, libbpf_get_bpf_permission());
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		create_named_map(&without);
		create_named_map(&with);
		_exit(without.err == -EPERM && !with.err &&
		      !strcmp(with.name, "feature_cache") ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(0, libbpf_put_bpf_permission());
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

	EXPECT_EQ(0, libbpf_get_bpf_permission())
		TH_LOG("errno %d (%s)", errno, strerror(errno));
	EXPECT_EQ(0, bpf_dev_status());
}

/*
 * Root in a new user namespace has every capability there, but none
 * over bpf(): libbpf must ask /dev/bpf, and the kernel refuses the grant
 * outside the initial user namespace. With uid 0 mapped to root, the node
 * opens, so EPERM shows that GET_PERM was issued and refused.
 */
TEST(root_in_user_namespace_is_not_privileged)
{
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
	EXPECT_EQ(-EPERM, libbpf_get_bpf_permission());
	EXPECT_EQ(EPERM, errno);
}

TEST_HARNESS_MAIN
