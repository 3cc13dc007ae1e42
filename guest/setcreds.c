// SPDX-License-Identifier: GPL-2.0
/*
 * setcreds [-a CAP] UID GID [GID,...|-] PROGRAM [ARG...]
 *
 * Runs PROGRAM with the given user, group and supplementary groups ("-"
 * for none), by execve() in the same process, so that the caller knows
 * PROGRAM's pid (bpftool.sh watches it). su forks, and in busybox it
 * takes the groups from /etc/group.
 *
 * -a CAP keeps capability number CAP (linux/capability.h) as an ambient
 * capability: PROGRAM runs with it and no other (upstream.sh gives
 * CAP_NET_RAW to test_maps so).
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

/* After setresuid() with PR_SET_KEEPCAPS: permitted and inheritable
 * become CAP alone, which may then be raised as ambient.
 */
static int keep_ambient(int cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

	data[CAP_TO_INDEX(cap)].permitted = CAP_TO_MASK(cap);
	data[CAP_TO_INDEX(cap)].inheritable = CAP_TO_MASK(cap);
	if (syscall(SYS_capset, &hdr, data))
		return -1;
	return prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0);
}

int main(int argc, char **argv)
{
	gid_t groups[16];
	int n = 0, cap = -1;
	uid_t uid;
	gid_t gid;
	char *g;

	if (argc > 2 && !strcmp(argv[1], "-a")) {
		cap = atoi(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc < 5 || cap > CAP_LAST_CAP) {
		fprintf(stderr, "usage: setcreds [-a CAP] UID GID GIDS|- PROGRAM [ARG...]\n");
		return 2;
	}
	uid = strtoul(argv[1], NULL, 10);
	gid = strtoul(argv[2], NULL, 10);
	if (strcmp(argv[3], "-"))
		for (g = strtok(argv[3], ","); g && n < 16; g = strtok(NULL, ","))
			groups[n++] = strtoul(g, NULL, 10);
	if ((cap >= 0 && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)) ||
	    setgroups(n, groups) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid) || (cap >= 0 && keep_ambient(cap))) {
		perror("setcreds");
		return 2;
	}
	execv(argv[4], argv + 4);
	perror(argv[4]);
	return 127;
}
