/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether the calling thread holds the /dev/bpf grant, asked of the
 * kernel: BPF_MAP_GET_NEXT_ID needs CAP_SYS_ADMIN (or the grant),
 * allocates nothing, and answers 0 or ENOENT when allowed.
 */
#ifndef DEVBPF_GRANT_H
#define DEVBPF_GRANT_H

#include <errno.h>
#include <linux/bpf.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int grant_held(void)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	if (!syscall(__NR_bpf, BPF_MAP_GET_NEXT_ID, &attr, sizeof(attr)))
		return 1;
	return errno != EPERM;
}

#endif
