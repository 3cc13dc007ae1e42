// SPDX-License-Identifier: GPL-2.0
/*
 * ipacct: what systemd's IPAccounting= does, as an unprivileged service.
 *
 * Takes the BPF grant through /dev/bpf (libbpf_get_bpf_permission()), or
 * with --scope NAME the grant of scope NAME through /dev/bpf-NAME,
 * loads a cgroup_skb program for each direction that adds the size of
 * every packet to a map, attaches both to the cgroup it runs in, gives
 * the grant back, sends UDP datagrams over loopback and prints what the
 * programs counted. Exits 0 when the counts are exactly what was sent.
 *
 * With --outside MAP_ID after --scope, it tries instead three things that
 * the netacct scope leaves out, and exits 0 when each is refused: loading
 * a kprobe program, attaching to the root cgroup, and opening map MAP_ID
 * (root's) by ID.
 */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define DATAGRAMS	100
#define PAYLOAD		1000
#define IP_UDP_HDRS	28	/* skb->len at the IP layer adds these */

struct counter {
	__u64 packets;
	__u64 bytes;
};

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })

/* counters[key].packets += 1; counters[key].bytes += skb->len; allow */
static int load_counter_prog(int map_fd, __u32 key)
{
	const struct bpf_insn insns[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_6, BPF_REG_1, 0, 0),
		INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, key),
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map_fd),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 4, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1,
		     offsetof(struct counter, packets), BPF_ADD),
		INSN(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_1, BPF_REG_6,
		     offsetof(struct __sk_buff, len), 0),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1,
		     offsetof(struct counter, bytes), BPF_ADD),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	return bpf_prog_load(BPF_PROG_TYPE_CGROUP_SKB, key ? "ipacct_egress" :
			     "ipacct_ingress", "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), NULL);
}

/* Opens the cgroup v2 directory this process runs in. */
static int open_own_cgroup(char *path, size_t len)
{
	char line[256], *p;
	FILE *f = fopen("/proc/self/cgroup", "r");

	if (!f)
		return -1;
	p = fgets(line, sizeof(line), f);
	fclose(f);
	if (!p || strncmp(line, "0::", 3))
		return -1;
	line[strcspn(line, "\n")] = '\0';
	snprintf(path, len, "/sys/fs/cgroup%s", line + 3);
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Says who runs it: the lines of /proc/self/status a unit file decides. */
static void print_credentials(void)
{
	static const char *const keys[] = { "Uid:", "Groups:", "CapEff:",
					    "CapBnd:", "NoNewPrivs:" };
	char line[256];
	unsigned int i;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strncmp(line, keys[i], strlen(keys[i])))
				printf("ipacct: %s", line);
	fclose(f);
}

static int send_loopback(void)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	char buf[PAYLOAD] = { 0 };
	int fd, i, ret = -1;

	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    getsockname(fd, (struct sockaddr *)&addr, &alen))
		goto out;
	for (i = 0; i < DATAGRAMS; i++) {
		if (sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&addr,
			   sizeof(addr)) != sizeof(buf) ||
		    recv(fd, buf, sizeof(buf), 0) != sizeof(buf))
			goto out;
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

/* Tries what the scope leaves out; 0 if each was refused with EPERM. */
static int try_outside(__u32 map_id)
{
	static const struct bpf_insn ret1[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	int fd, root, refused = 0;

	fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "ipacct_kprobe", "GPL", ret1,
			   2, NULL);
	refused += fd < 0 && errno == EPERM;
	printf("ipacct: outside the scope: BPF_PROG_LOAD of a kprobe program: %s\n",
	       fd < 0 ? strerror(errno) : "loaded");

	fd = bpf_prog_load(BPF_PROG_TYPE_CGROUP_SKB, "ipacct_root", "GPL", ret1,
			   2, NULL);
	root = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || root < 0) {
		printf("ipacct: cannot try the root cgroup: %s\n",
		       strerror(errno));
		return 1;
	}
	if (bpf_prog_attach(fd, root, BPF_CGROUP_INET_INGRESS, 0) == 0) {
		printf("ipacct: outside the scope: BPF_PROG_ATTACH to /sys/fs/cgroup: attached\n");
		bpf_prog_detach2(fd, root, BPF_CGROUP_INET_INGRESS);
	} else {
		refused += errno == EPERM;
		printf("ipacct: outside the scope: BPF_PROG_ATTACH to /sys/fs/cgroup: %s\n",
		       strerror(errno));
	}

	fd = bpf_map_get_fd_by_id(map_id);
	refused += fd < 0 && errno == EPERM;
	printf("ipacct: outside the scope: BPF_MAP_GET_FD_BY_ID of root's map %u: %s\n",
	       map_id, fd < 0 ? strerror(errno) : "opened");
	return refused == 3 ? 0 : 1;
}

int main(int argc, char **argv)
{
	static const char *const dir[] = { "ingress", "egress" };
	const enum bpf_attach_type type[] = {
		BPF_CGROUP_INET_INGRESS, BPF_CGROUP_INET_EGRESS,
	};
	const __u64 want = (__u64)DATAGRAMS * (PAYLOAD + IP_UDP_HDRS);
	LIBBPF_OPTS(libbpf_bpf_permission_opts, opts);
	int map_fd, cg_fd, prog_fd[2], bad = 0, err;
	char cgroup[300], node[64] = LIBBPF_DEV_BPF;
	const char *scope = NULL;
	struct stat st;
	__u32 key;

	if (argc >= 3 && !strcmp(argv[1], "--scope")) {
		scope = argv[2];
		snprintf(node, sizeof(node), "/dev/bpf-%s", scope);
		opts.node = node;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(NULL);
	print_credentials();
	err = libbpf_get_bpf_permission_opts(&opts);
	if (err) {
		printf("ipacct: cannot use BPF: %s %s (%s)\n", node,
		       err == -EACCES ? "is not readable by this user" :
		       "gave no grant", strerror(-err));
		printf("ipacct: run the service with SupplementaryGroups=%s\n",
		       node + strlen("/dev/"));
		return 1;
	}
	printf("ipacct: uid %u took the BPF grant through %s\n", getuid(),
	       node);
	if (scope && argc == 5 && !strcmp(argv[3], "--outside"))
		return try_outside(strtoul(argv[4], NULL, 0));
	/* CAP_SYS_ADMIN's: the grant passes it only if the bounding set does */
	err = bpf_map_get_next_id(0, &key) && errno != ENOENT ? -errno : 0;
	printf("ipacct: the grant lists the system's BPF maps: %s\n",
	       err ? strerror(-err) : "yes");

	cg_fd = open_own_cgroup(cgroup, sizeof(cgroup));
	if (cg_fd < 0 || fstat(cg_fd, &st)) {
		printf("ipacct: cannot open my cgroup: %s\n", strerror(errno));
		return 1;
	}
	printf("ipacct: my cgroup %s belongs to uid %u\n", cgroup, st.st_uid);
	map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ipacct", sizeof(__u32),
				sizeof(struct counter), 2, NULL);
	if (map_fd < 0) {
		printf("ipacct: BPF_MAP_CREATE: %s\n", strerror(errno));
		return 1;
	}
	for (key = 0; key < 2; key++) {
		prog_fd[key] = load_counter_prog(map_fd, key);
		if (prog_fd[key] < 0) {
			printf("ipacct: BPF_PROG_LOAD (%s): %s\n", dir[key],
			       strerror(errno));
			return 1;
		}
		if (bpf_prog_attach(prog_fd[key], cg_fd, type[key], 0)) {
			printf("ipacct: BPF_PROG_ATTACH (%s) to %s: %s\n",
			       dir[key], cgroup, strerror(errno));
			return 1;
		}
	}
	printf("ipacct: counting in %s (cgroup_skb ingress and egress)\n",
	       cgroup);
	err = libbpf_put_bpf_permission();
	if (err) {
		printf("ipacct: could not give the grant back: %s\n",
		       strerror(-err));
		return 1;
	}
	printf("ipacct: gave the grant back; the map fd is all it needs now\n");

	if (send_loopback()) {
		printf("ipacct: loopback traffic failed: %s\n", strerror(errno));
		return 1;
	}
	printf("ipacct: sent %d UDP datagrams of %d bytes to 127.0.0.1\n",
	       DATAGRAMS, PAYLOAD);
	for (key = 0; key < 2; key++) {
		struct counter c;

		if (bpf_map_lookup_elem(map_fd, &key, &c)) {
			printf("ipacct: BPF_MAP_LOOKUP_ELEM: %s\n",
			       strerror(errno));
			return 1;
		}
		printf("ipacct: %-7s %llu packets, %llu bytes (expected %d, %llu)\n",
		       dir[key], (unsigned long long)c.packets,
		       (unsigned long long)c.bytes, DATAGRAMS,
		       (unsigned long long)want);
		bad |= c.packets != DATAGRAMS || c.bytes != want;
	}
	return bad;
}
