// SPDX-License-Identifier: GPL-2.0
/*
 * setcreds UID GID [GID,...|-] PROGRAM [ARG...]
 *
 * Runs PROGRAM with the given user, group and supplementary groups ("-"
 * for none), as systemd does for User= and SupplementaryGroups=, which
 * busybox's su cannot: su takes the groups from /etc/group.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	gid_t groups[16];
	int n = 0;
	uid_t uid;
	gid_t gid;
	char *g;

	if (argc < 5) {
		fprintf(stderr, "usage: setcreds UID GID GIDS|- PROGRAM [ARG...]\n");
		return 2;
	}
	uid = strtoul(argv[1], NULL, 10);
	gid = strtoul(argv[2], NULL, 10);
	if (strcmp(argv[3], "-"))
		for (g = strtok(argv[3], ","); g && n < 16; g = strtok(NULL, ","))
			groups[n++] = strtoul(g, NULL, 10);
	if (setgroups(n, groups) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid)) {
		perror("setcreds");
		return 2;
	}
	execv(argv[4], argv + 4);
	perror(argv[4]);
	return 127;
}
