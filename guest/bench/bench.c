// SPDX-License-Identifier: GPL-2.0
/*
 * bench [IDENTITY...]: the same bpf() loops under four identities (or the
 * ones named, among them scope), in one boot.
 *
 *   root     uid 0, full capabilities
 *   caps     uid 1000 with CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN as
 *            ambient capabilities, nothing else
 *   grant    uid 1000 in group bpf, holding the /dev/bpf grant
 *   token    uid 1000 as root of its own user namespace, passing a BPF
 *            token made from a bpffs that root delegated to it
 *   scope    uid 1000 in group bpf, holding the grant of a scope that
 *            allows everything (/dev/bpf-bench): the scope's checks run
 *            on every call and pass, so the difference to grant is what
 *            they cost
 *
 * Loops: BPF_MAP_CREATE + close of an LRU hash and of a one-entry array;
 * BPF_PROG_LOAD + close of a two-instruction socket filter;
 * BPF_MAP_LOOKUP_ELEM; BPF_MAP_GET_NEXT_ID (a CAP_SYS_ADMIN command);
 * two uses of a program through its fd, which a scope checks: a
 * BPF_PROG_TEST_RUN of the socket filter, and setsockopt(SO_ATTACH_BPF)
 * of it on a UDP socket;
 * acquiring the privilege (open + GET_PERM + close, or BPF_TOKEN_CREATE +
 * close); and PUT_PERM + GET_PERM on a file kept open, with 0, 1000 and
 * 4000 idle processes on the machine (get_put_N), which libbpf and bpftool
 * pay around each piece of work.
 * Each loop runs REPEATS times per identity, the identities taking turns,
 * each run after the deferred frees of the previous one have settled;
 * the median nanoseconds per operation are printed, with the fastest and
 * the slowest run's, as
 *   BENCH <identity> <loop> <ns/op> <ops> <min> <max>
 * or   BENCH <id> <loop> NA <why>
 * Under QEMU's -icount the clock counts instructions, so the figures are
 * the same every run and the ratios between identities are exact.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/bpf.h>
#include <linux/bpf_dev.h>
#include <linux/capability.h>
#include <linux/mount.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REPEATS		9
#define UID		1000
#define GID_BPF		990

enum loop {
	MAP_CREATE, ARRAY_CREATE, PROG_LOAD, LOOKUP, NEXT_ID, TEST_RUN,
	SO_ATTACH, ACQUIRE, GET_PUT_0, GET_PUT_1000, GET_PUT_4000, NLOOPS
};
static const char *const loop_name[NLOOPS] = {
	"map_create", "array_create", "prog_load", "map_lookup", "map_next_id",
	"prog_test_run", "so_attach_bpf", "acquire", "get_put_0",
	"get_put_1000", "get_put_4000",
};
static const int loop_ops[NLOOPS] = {
	200, 200, 200, 20000, 20000, 2000, 2000, 1000, 2000, 2000, 2000,
};
/* How many idle processes the get_put loops run beside */
static const int loop_idle[NLOOPS] = {
	[GET_PUT_1000] = 1000, [GET_PUT_4000] = 4000,
};

static int token_fd = -1, bpffs_fd = -1, node_fd = -1;
/* The node the grant is taken through */
static const char *node_path = "/dev/bpf";
#define SCOPE_DIR	"/sys/kernel/config/bpf_dev/bench"

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int map_create(enum bpf_map_type type, __u32 entries)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = type;
	attr.key_size = 4;
	attr.value_size = 8;
	attr.max_entries = entries;
	if (token_fd >= 0) {
		attr.map_token_fd = token_fd;
		attr.map_flags = BPF_F_TOKEN_FD;
	}
	return sys_bpf(BPF_MAP_CREATE, &attr);
}

static int prog_load(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (__u64)(unsigned long)insns;
	attr.insn_cnt = 2;
	attr.license = (__u64)(unsigned long)"GPL";
	if (token_fd >= 0) {
		attr.prog_token_fd = token_fd;
		attr.prog_flags = BPF_F_TOKEN_FD;
	}
	return sys_bpf(BPF_PROG_LOAD, &attr);
}

static int acquire_grant(void)
{
	int fd = open(node_path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, BPF_DEV_IOCTL_GET_PERM, 0))
		return -1;
	return close(fd);
}

/* Gives the grant back and takes it again, on a file kept open. */
static int put_get(void)
{
	return ioctl(node_fd, BPF_DEV_IOCTL_PUT_PERM, 0) ||
	       ioctl(node_fd, BPF_DEV_IOCTL_GET_PERM, 0) ? -1 : 0;
}

static int acquire_token(void)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.token_create.bpffs_fd = bpffs_fd;
	fd = sys_bpf(BPF_TOKEN_CREATE, &attr);
	return fd < 0 ? -1 : close(fd);
}

/* Deferred frees (maps, programs) finish before the next timed run. */
static void settle(void)
{
	usleep(200000);
}

/* Returns ns for @n operations of @loop, or -errno. */
static long long run(enum loop loop, int n, int (*acquire)(void))
{
	char pkt[64] = { 0 };
	__u32 key = 0;
	__u64 value;
	union bpf_attr attr;
	long long t0;
	int i, fd = -1, sk = -1;

	memset(&attr, 0, sizeof(attr));
	if (loop == LOOKUP) {
		fd = map_create(BPF_MAP_TYPE_ARRAY, 1);
		if (fd < 0)
			return -errno;
		attr.map_fd = fd;
		attr.key = (__u64)(unsigned long)&key;
		attr.value = (__u64)(unsigned long)&value;
	} else if (loop == TEST_RUN || loop == SO_ATTACH) {
		fd = prog_load();
		if (fd < 0)
			return -errno;
		attr.test.prog_fd = fd;
		attr.test.data_in = (__u64)(unsigned long)pkt;
		attr.test.data_size_in = sizeof(pkt);
		attr.test.repeat = 1;
		sk = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (sk < 0)
			return -errno;
	}
	settle();
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		int ret;

		switch (loop) {
		case MAP_CREATE:
			ret = map_create(BPF_MAP_TYPE_LRU_HASH, 64);
			break;
		case ARRAY_CREATE:
			ret = map_create(BPF_MAP_TYPE_ARRAY, 1);
			break;
		case PROG_LOAD:
			ret = prog_load();
			break;
		case LOOKUP:
			ret = sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr);
			break;
		case NEXT_ID:
			/* start_id 0: the lowest map ID, or ENOENT if none */
			ret = sys_bpf(BPF_MAP_GET_NEXT_ID, &attr);
			if (ret < 0 && errno == ENOENT)
				ret = 0;
			break;
		case TEST_RUN:
			ret = sys_bpf(BPF_PROG_TEST_RUN, &attr);
			break;
		case SO_ATTACH:
			ret = setsockopt(sk, SOL_SOCKET, SO_ATTACH_BPF, &fd,
					 sizeof(fd));
			break;
		case ACQUIRE:
			ret = acquire();
			break;
		default:
			ret = put_get();
			break;
		}
		if (ret < 0)
			return -errno;
		if (loop == MAP_CREATE || loop == ARRAY_CREATE ||
		    loop == PROG_LOAD)
			close(ret);
	}
	t0 = now_ns() - t0;
	if (fd >= 0)
		close(fd);
	if (sk >= 0)
		close(sk);
	return t0;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static int become_user(int in_bpf_group)
{
	const gid_t groups[] = { GID_BPF };

	return setgroups(in_bpf_group, groups) || setresgid(UID, UID, UID) ||
	       setresuid(UID, UID, UID) ? -1 : 0;
}

static int ident_caps(void)
{
	const int caps[] = { CAP_BPF, CAP_PERFMON, CAP_NET_ADMIN };
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};
	unsigned int i;

	if (prctl(PR_SET_KEEPCAPS, 1) || become_user(0))
		return -1;
	for (i = 0; i < 3; i++) {
		data[caps[i] / 32].effective |= 1U << (caps[i] % 32);
		data[caps[i] / 32].permitted |= 1U << (caps[i] % 32);
		data[caps[i] / 32].inheritable |= 1U << (caps[i] % 32);
	}
	if (syscall(__NR_capset, &hdr, data))
		return -1;
	for (i = 0; i < 3; i++)
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, caps[i], 0, 0))
			return -1;
	return 0;
}

static int send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {}, c = 0;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {}, c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/*
 * The token set-up of upstream's token selftest: the child makes a user
 * and mount namespace and a bpffs context, root (the parent) sets the
 * delegation options and creates the mount, the child makes the token.
 */
static int ident_token_child(int sock)
{
	char map[32];
	int fs_fd, mnt_fd;

	/* Dumpable again after setuid, or /proc/self/uid_map stays root's. */
	if (become_user(0) || prctl(PR_SET_DUMPABLE, 1) ||
	    unshare(CLONE_NEWUSER))
		return -1;
	snprintf(map, sizeof(map), "0 %d 1", UID);
	if (write_str("/proc/self/setgroups", "deny") ||
	    write_str("/proc/self/uid_map", map) ||
	    write_str("/proc/self/gid_map", map) ||
	    setresgid(0, 0, 0) || setresuid(0, 0, 0) || unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -1;
	fs_fd = syscall(__NR_fsopen, "bpf", 0);
	if (fs_fd < 0 || send_fd(sock, fs_fd))
		return -1;
	close(fs_fd);
	mnt_fd = recv_fd(sock);
	if (mnt_fd < 0)
		return -1;
	bpffs_fd = openat(mnt_fd, ".", O_RDONLY | O_CLOEXEC);
	close(mnt_fd);
	if (bpffs_fd < 0)
		return -1;
	return acquire_token() ? -1 : 0;
}

static int token_parent(int sock)
{
	static const char *const keys[] = {
		"delegate_cmds", "delegate_maps", "delegate_progs",
		"delegate_attachs",
	};
	int fs_fd = recv_fd(sock), mnt_fd;
	unsigned int i;

	if (fs_fd < 0)
		return -1;
	for (i = 0; i < 4; i++)
		if (syscall(__NR_fsconfig, fs_fd, FSCONFIG_SET_STRING, keys[i],
			    "any", 0))
			return -1;
	if (syscall(__NR_fsconfig, fs_fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		return -1;
	mnt_fd = syscall(__NR_fsmount, fs_fd, 0, 0);
	if (mnt_fd < 0 || send_fd(sock, mnt_fd))
		return -1;
	close(mnt_fd);
	close(fs_fd);
	return 0;
}

#define NIDS	5
static const char *const all_ids[NIDS] = {
	"root", "caps", "grant", "token", "scope",
};

/*
 * Root makes the scope "bench", which lets everything through, and gives
 * its node to group GID_BPF.
 */
static int make_scope(void)
{
	static const char *const attrs[][2] = {
		{ "caps", "bpf:perfmon:net_admin:sys_admin" },
		{ "cmds", "any" }, { "maps", "any" }, { "progs", "any" },
		{ "attachs", "any" }, { "cgroups", "any" }, { "objects", "write" },
	};
	char path[128];
	unsigned int i;

	if (access("/sys/kernel/config/bpf_dev", F_OK) &&
	    mount("configfs", "/sys/kernel/config", "configfs", 0, NULL))
		return -1;
	if (mkdir(SCOPE_DIR, 0755) && errno != EEXIST)
		return -1;
	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		snprintf(path, sizeof(path), SCOPE_DIR "/%s", attrs[i][0]);
		if (write_str(path, attrs[i][1]))
			return -1;
	}
	return write_str(SCOPE_DIR "/enable", "1") ||
	       chown("/dev/bpf-bench", 0, GID_BPF) ||
	       chmod("/dev/bpf-bench", 0440) ? -1 : 0;
}

struct worker {
	pid_t pid;
	int cmd;	/* loop numbers in, -1 to stop */
	int res;	/* one long long per loop number out */
};

/* The identity's process: set up, then run whatever loop it is sent. */
static void worker_main(const char *who, int cmd, int res, int sock)
{
	int (*acquire)(void) = NULL;
	long long t;
	int loop, err = 0;

	if (!strcmp(who, "caps")) {
		err = ident_caps();
	} else if (!strcmp(who, "grant") || !strcmp(who, "scope")) {
		if (!strcmp(who, "scope"))
			node_path = "/dev/bpf-bench";
		err = become_user(1) || acquire_grant();
		node_fd = open(node_path, O_RDONLY | O_CLOEXEC);
		err = err || node_fd < 0;
		acquire = acquire_grant;
	} else if (!strcmp(who, "token")) {
		err = ident_token_child(sock);
		if (!err) {
			/* The token every call passes. */
			union bpf_attr attr;

			memset(&attr, 0, sizeof(attr));
			attr.token_create.bpffs_fd = bpffs_fd;
			token_fd = sys_bpf(BPF_TOKEN_CREATE, &attr);
			err = token_fd < 0;
		}
		acquire = acquire_token;
	}
	if (err)
		printf("BENCH %s setup NA %s\n", who, strerror(errno));
	while (read(cmd, &loop, sizeof(loop)) == sizeof(loop) && loop >= 0) {
		if (err)
			t = -EPERM;
		else if (loop >= ACQUIRE && !acquire)
			t = -ENOSYS;
		else if (loop > ACQUIRE && node_fd < 0)
			t = -ENOSYS;
		else
			t = run(loop, loop_ops[loop], acquire);
		if (write(res, &t, sizeof(t)) != sizeof(t))
			break;
	}
	_exit(0);
}

static int start_worker(struct worker *w, const char *who)
{
	int cmd[2], res[2], sv[2] = { -1, -1 };

	if (pipe(cmd) || pipe(res))
		return -1;
	if (!strcmp(who, "token") && socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return -1;
	w->pid = fork();
	if (w->pid == 0) {
		close(cmd[1]);
		close(res[0]);
		if (sv[0] >= 0)
			close(sv[0]);
		worker_main(who, cmd[0], res[1], sv[1]);
	}
	close(cmd[0]);
	close(res[1]);
	w->cmd = cmd[1];
	w->res = res[0];
	if (sv[0] >= 0) {
		close(sv[1]);
		if (token_parent(sv[0]))
			printf("BENCH token setup NA parent: %s\n", strerror(errno));
		close(sv[0]);
	}
	return w->pid < 0 ? -1 : 0;
}

/* Idle processes, forked by root and waiting, kept up to @n. */
static pid_t idle_pid[4000];
static int idle_n;

static int idle_processes(int n)
{
	if (n > (int)(sizeof(idle_pid) / sizeof(idle_pid[0]))) {
		errno = E2BIG;
		return -1;
	}
	while (idle_n < n) {
		pid_t pid = fork();

		if (pid < 0)
			return -1;
		if (pid == 0) {
			for (;;)
				pause();
		}
		idle_pid[idle_n++] = pid;
	}
	return 0;
}

static void idle_stop(void)
{
	while (idle_n > 0) {
		kill(idle_pid[--idle_n], SIGKILL);
		waitpid(idle_pid[idle_n], NULL, 0);
	}
}

/*
 * Every repeat of a loop visits every identity, starting each time with
 * the next one, so that whatever drifts during the boot (ID allocation,
 * the JIT's memory packs) weighs on all of them alike.
 */
int main(int argc, char **argv)
{
	const char *const *ids = all_ids;
	struct worker w[NIDS];
	long long t[NIDS][REPEATS];
	/* scope only when named: making it turns its checks on for all */
	int loop, r, k, i, nids = NIDS - 1, stop = -1, has_grant = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1) {
		ids = (const char *const *)argv + 1;
		nids = argc - 1;
		for (i = 0, k = 0; i < nids && nids <= NIDS && k < NIDS; i++)
			for (k = 0; k < NIDS && strcmp(ids[i], all_ids[k]); k++)
				;
		if (nids > NIDS || k == NIDS) {
			fprintf(stderr, "usage: bench [root|caps|grant|token|scope]...\n");
			return 2;
		}
	}
	for (i = 0; i < nids; i++)
		if (!strcmp(ids[i], "scope") && make_scope())
			printf("BENCH scope setup NA %s\n", strerror(errno));
	for (i = 0; i < nids; i++)
		if (start_worker(&w[i], ids[i]))
			return 1;
	for (i = 0; i < nids; i++)
		has_grant |= !strcmp(ids[i], "grant") || !strcmp(ids[i], "scope");
	for (loop = 0; loop < NLOOPS; loop++) {
		/* only the grant has a get_put loop: the others need no idlers */
		if (has_grant && idle_processes(loop_idle[loop]))
			printf("BENCH all %s NA fork: %s\n", loop_name[loop],
			       strerror(errno));
		for (r = 0; r < REPEATS; r++) {
			for (k = 0; k < nids; k++) {
				i = (r + k) % nids;
				if (write(w[i].cmd, &loop, sizeof(loop)) != sizeof(loop) ||
				    read(w[i].res, &t[i][r], sizeof(t[i][r])) != sizeof(t[i][r]))
					t[i][r] = -EIO;
			}
		}
		for (i = 0; i < nids; i++) {
			for (r = 0; r < REPEATS && t[i][r] >= 0; r++)
				;
			if (r < REPEATS) {
				printf("BENCH %s %s NA %s\n", ids[i], loop_name[loop],
				       t[i][r] == -ENOSYS ? "nothing to acquire" :
				       strerror(-t[i][r]));
				continue;
			}
			qsort(t[i], REPEATS, sizeof(t[i][0]), cmp_ll);
			printf("BENCH %s %s %.2f %d %.2f %.2f\n", ids[i],
			       loop_name[loop],
			       (double)t[i][REPEATS / 2] / loop_ops[loop],
			       loop_ops[loop],
			       (double)t[i][0] / loop_ops[loop],
			       (double)t[i][REPEATS - 1] / loop_ops[loop]);
		}
	}
	idle_stop();
	for (i = 0; i < nids; i++) {
		if (write(w[i].cmd, &stop, sizeof(stop)) != sizeof(stop))
			kill(w[i].pid, SIGKILL);
		waitpid(w[i].pid, NULL, 0);
	}
	return 0;
}
