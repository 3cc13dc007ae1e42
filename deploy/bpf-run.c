// SPDX-License-Identifier: GPL-2.0
/*
 * bpf-run [--scope NAME] CMD [ARG...]: run CMD with the /dev/bpf grant, or
 * with the grant of /dev/bpf-NAME (--scope trace: /dev/bpf-trace, which
 * adds perf events, tracepoint IDs and kernel addresses; other names: the
 * scopes an administrator defined, each a limited grant).
 *
 * Opens the node, asks with BPF_DEV_IOCTL_EXEC_PERM that the next execve()
 * give the new image the grant, and executes CMD, found in PATH as the
 * shell finds it; a file of no format the kernel knows is not run with
 * /bin/sh. CMD is any program: it need not know about /dev/bpf.
 * See bpf-run(1).
 *
 * Exit status: CMD's; 125 if bpf-run failed before CMD could run, 126 if
 * CMD was found but could not be executed, 127 if it was not found.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <linux/bpf_dev.h>

/* The node, and the misc device that makes it: /dev/bpf or /dev/bpf-NAME */
static char node[128] = "/dev/bpf";
static char misc_device[128] = "/sys/class/misc/bpf";
static const char *scope;

#define EXIT_FAILED	125
#define EXIT_CANNOT_RUN	126
#define EXIT_NOT_FOUND	127

static const char *prog = "bpf-run";

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: %s [--scope NAME] [--] CMD [ARG...]\n"
		"Run CMD with the BPF privilege of /dev/bpf: CMD passes the\n"
		"capability checks of bpf() as a holder of CAP_BPF would.\n"
		"With --scope NAME, with the privilege of /dev/bpf-NAME instead:\n"
		"  trace  also perf events (kprobes, uprobes, tracepoints, perf\n"
		"         buffers), tracepoint IDs in tracefs, kernel addresses\n"
		"  others the scopes the administrator defined (bpf-scopes(8)),\n"
		"         listed in /sys/kernel/config/bpf_dev: a grant limited\n"
		"         to some capabilities, commands and types\n"
		"The caller must be allowed to open the node (usually: be in its\n"
		"group).\n"
		"\n"
		"Exit status: CMD's, or %d if %s failed, %d if CMD could not be\n"
		"executed, %d if CMD was not found.\n",
		prog, EXIT_FAILED, prog, EXIT_CANNOT_RUN, EXIT_NOT_FOUND);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_FAILED);
}

/* Whether the user's entry in the group database lists group @gid. */
static bool member_in_db(gid_t gid)
{
	struct passwd *pw = getpwuid(getuid());
	struct group *gr;
	char **m;

	if (!pw)
		return false;
	if (pw->pw_gid == gid)
		return true;
	gr = getgrgid(gid);
	for (m = gr ? gr->gr_mem : NULL; m && *m; m++)
		if (!strcmp(*m, pw->pw_name))
			return true;
	return false;
}

static void explain_open(int err)
{
	struct group *gr;
	struct stat st;
	const char *name;

	if (err == ENOENT) {
		if (scope && access(misc_device, F_OK) && !access("/sys/class/misc/bpf", F_OK))
			fail("no %s: no scope '%s' is defined (see bpf-run --help, bpf-scopes(8))",
			     node, scope);
		if (access(misc_device, F_OK))
			fail("no %s: this kernel was built without CONFIG_BPF_DEV", node);
		fail("no %s, though the kernel has the device: is udev running?", node);
	}
	if (err != EACCES && err != EPERM)
		fail("cannot open %s: %s", node, strerror(err));
	if (stat(node, &st))
		fail("cannot open %s: %s", node, strerror(err));
	gr = getgrgid(st.st_gid);
	name = gr ? gr->gr_name : "?";
	if (!(st.st_mode & S_IRGRP) || st.st_gid == 0)
		fail("cannot open %s (%s, mode %04o, group %s): no group may use it; "
		     "an administrator installs a udev rule that gives it one",
		     node, strerror(err), st.st_mode & 07777, name);
	if (member_in_db(st.st_gid))
		fail("cannot open %s: you are in group '%s', but this session "
		     "started before you were added: log in again", node, name);
	fail("cannot open %s: only members of group '%s' may use BPF through it; "
	     "ask an administrator to add you (usermod -aG %s USER), then log in again",
	     node, name, name);
}

/* The TracerPid: line of /proc/self/status, or 0. */
static long tracer_pid(void)
{
	char line[128];
	long pid = 0;
	FILE *f;

	f = fopen("/proc/self/status", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %ld", &pid) == 1)
			break;
	fclose(f);
	return pid;
}

/* Whether this process is in the initial user namespace. */
static bool in_initial_user_ns(void)
{
	unsigned long inside, outside, count;
	FILE *f = fopen("/proc/self/uid_map", "r");
	bool initial;

	if (!f)
		return true;
	initial = fscanf(f, "%lu %lu %lu", &inside, &outside, &count) == 3 &&
		  inside == 0 && outside == 0 && count == 4294967295UL;
	fclose(f);
	return initial;
}

static void explain_exec_perm(int err)
{
	switch (err) {
	case ENOTTY:
	case EINVAL:
		fail("this kernel's %s cannot start programs with the grant "
		     "(no BPF_DEV_IOCTL_EXEC_PERM); only programs that take it "
		     "themselves can use it", node);
	case EPERM:
		if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1)
			fail("no_new_privs is set (NoNewPrivileges=, setpriv "
			     "--no-new-privs, or a sandbox): no program it runs "
			     "may gain privilege, the grant included");
		if (!in_initial_user_ns())
			fail("in a user namespace (a container?): the grant is "
			     "only given in the initial one");
		fail("the grant was refused by a security module (EPERM); "
		     "its log or the audit log says why");
	case EBUSY:
		fail("traced by process %ld, which could not trace a holder of "
		     "the grant: run without the debugger or tracer",
		     tracer_pid());
	case EACCES:
		fail("the grant was refused by a security module (EACCES); "
		     "its log or the audit log says why");
	default:
		fail("BPF_DEV_IOCTL_EXEC_PERM: %s", strerror(err));
	}
}

/* Whether @path is a regular file that we may execute */
static bool executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

/*
 * The file to run for @cmd, into @path: @cmd if it has a '/', else the
 * first executable regular file of that name in PATH (glibc's default
 * PATH if it is unset). False if there is none.
 */
static bool find_program(const char *cmd, char *path, size_t size)
{
	const char *dirs = getenv("PATH"), *p, *end;

	if (strchr(cmd, '/')) {
		snprintf(path, size, "%s", cmd);
		return true;
	}
	if (!dirs)
		dirs = "/bin:/usr/bin";
	for (p = dirs; ; p = end + 1) {
		end = strchrnul(p, ':');
		if (end == p)	/* an empty element: the current directory */
			snprintf(path, size, "./%s", cmd);
		else
			snprintf(path, size, "%.*s/%s", (int)(end - p), p, cmd);
		if (executable(path))
			return true;
		if (!*end)
			return false;
	}
}

/*
 * The kernel gives no privilege to a program on a nosuid mount or to a
 * script, the grant included, as it ignores set-ID bits there: the program
 * would run without the grant. Say so before anything is asked.
 */
static void check_program(const char *path)
{
	struct statvfs vfs;
	char magic[2];
	int fd;

	if (statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_NOSUID))
		fail("%s is on a file system mounted nosuid, where no program "
		     "gains privilege (the grant included): run a copy from "
		     "another file system", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (read(fd, magic, sizeof(magic)) == sizeof(magic) &&
	    magic[0] == '#' && magic[1] == '!')
		fail("%s is a script, and a script gains no privilege (the "
		     "grant included): run its interpreter with %s instead",
		     path, prog);
	close(fd);
}

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	int fd, i = 1;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--scope")) {
		scope = argv[2];
		if (!*scope || strchr(scope, '/') || strlen(scope) > 32) {
			fprintf(stderr, "%s: --scope: '%s' is not a scope name\n",
				prog, scope);
			return EXIT_FAILED;
		}
		snprintf(node, sizeof(node), "/dev/bpf-%s", scope);
		snprintf(misc_device, sizeof(misc_device),
			 "/sys/class/misc/bpf-%s", scope);
		i += 2;
	}
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (i >= argc || (argv[i][0] == '-' && argv[i][1])) {
		usage(stderr);
		return EXIT_FAILED;
	}

	if (!find_program(argv[i], path, sizeof(path))) {
		fprintf(stderr, "%s: %s: command not found\n", prog, argv[i]);
		return EXIT_NOT_FOUND;
	}
	check_program(path);
	fd = open(node, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		explain_open(errno);
	if (ioctl(fd, BPF_DEV_IOCTL_EXEC_PERM, 0))
		explain_exec_perm(errno);
	close(fd);

	/*
	 * execv(), not execvp(): on ENOEXEC the C library would run the file
	 * with /bin/sh, which would then hold the grant.
	 */
	execv(path, argv + i);
	fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
	return errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}
