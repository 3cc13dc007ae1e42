/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether the calling thread holds the /dev/bpf grant, asked of the
 * kernel: BPF_MAP_GET_NEXT_ID needs CAP_SYS_ADMIN (or the grant),
 * allocates nothing, and answers 0 or ENOENT when allowed, EPERM when
 * not. Any other answer is neither, and is reported as such.
 */
#ifndef DEVBPF_GRANT_H
#define DEVBPF_GRANT_H

#include <errno.h>
#include <linux/bpf.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* 1: held, 0: not held, -1: the kernel's answer says neither (errno). */
static inline int grant_held(void)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	if (!syscall(__NR_bpf, BPF_MAP_GET_NEXT_ID, &attr, sizeof(attr)) ||
	    errno == ENOENT)
		return 1;
	return errno == EPERM ? 0 : -1;
}

#endif
