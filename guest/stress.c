// SPDX-License-Identifier: GPL-2.0
/*
 * stress SECONDS: threads and processes take and give back the /dev/bpf
 * grant, fork and execve at the same time, and check after every step
 * that the grant is where it should be and nowhere else; meanwhile, in
 * other processes, a thread takes the grant while another makes the
 * parent its tracer. Run as a user who may open /dev/bpf. Prints TAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/bpf_dev.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "grant.h"

#define THREADS		4
#define PROCESSES	2
#define EXEC_PROBE	"--exec-probe"

struct shared {
	atomic_long ops;
	atomic_long violations;
};

static struct shared *sh;
static int dev_fd;
static time_t deadline;

static void expect(int cond, const char *what)
{
	atomic_fetch_add(&sh->ops, 1);
	if (!cond) {
		atomic_fetch_add(&sh->violations, 1);
		printf("# violation: %s (pid %d tid %ld)\n", what, getpid(),
		       syscall(__NR_gettid));
	}
}

/* GET, check, PUT, check, again and again. */
static void *cycler(void *arg)
{
	while (time(NULL) < deadline) {
		expect(!ioctl(dev_fd, BPF_DEV_IOCTL_GET_PERM, 0), "GET_PERM failed");
		expect(grant_held() == 1, "no grant after GET_PERM");
		expect(!ioctl(dev_fd, BPF_DEV_IOCTL_PUT_PERM, 0), "PUT_PERM failed");
		expect(grant_held() == 0, "grant still there after PUT_PERM");
	}
	return NULL;
}

/* Never asks: must never see a grant, whatever its siblings do. */
static void *witness(void *arg)
{
	while (time(NULL) < deadline)
		expect(grant_held() == 0, "a thread that never asked holds a grant");
	return NULL;
}

/* Holds the grant and forks and execs: no child may inherit it. */
static void *spawner(void *arg)
{
	char *const argv[] = { "stress", EXEC_PROBE, NULL };
	int status;
	pid_t pid;

	expect(!ioctl(dev_fd, BPF_DEV_IOCTL_GET_PERM, 0), "GET_PERM failed");
	while (time(NULL) < deadline) {
		pid = fork();
		if (pid == 0)
			_exit(grant_held() == 0 ? 0 : 1);
		expect(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		       !WEXITSTATUS(status), "forked child holds the grant");
		pid = fork();
		if (pid == 0) {
			/* The child takes the grant itself, then execs. */
			if (ioctl(dev_fd, BPF_DEV_IOCTL_GET_PERM, 0) || grant_held() != 1)
				_exit(2);
			execv("/proc/self/exe", argv);
			_exit(3);
		}
		expect(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		       !WEXITSTATUS(status), "exec'd image holds the grant");
		expect(grant_held() == 1, "spawner lost its grant");
	}
	return NULL;
}

static pthread_barrier_t race_start, race_end;

/* Stays, traced or not, until GET_PERM has answered. */
static void *traceme(void *arg)
{
	pthread_barrier_wait(&race_start);
	*(long *)arg = ptrace(PTRACE_TRACEME, 0, NULL, NULL);
	pthread_barrier_wait(&race_end);
	return NULL;
}

/*
 * One thread asks for the grant while another calls PTRACE_TRACEME, which
 * makes this process's parent, which has no grant, its tracer: one of the
 * two must fail. The child exits 1 if both succeeded.
 */
static int traceme_race(void)
{
	long traced = -1;
	pthread_t t;
	int got;

	pthread_barrier_init(&race_start, NULL, 2);
	pthread_barrier_init(&race_end, NULL, 2);
	if (pthread_create(&t, NULL, traceme, &traced))
		return 2;
	pthread_barrier_wait(&race_start);
	got = ioctl(dev_fd, BPF_DEV_IOCTL_GET_PERM, 0);
	pthread_barrier_wait(&race_end);
	pthread_join(t, NULL);
	return !got && !traced;
}

/* Rounds of traceme_race() in children of this process, until the end. */
static void traceme_rounds(void)
{
	int status;
	pid_t pid, got;

	while (time(NULL) < deadline) {
		pid = fork();
		if (pid == 0)
			_exit(traceme_race());
		/* The traced thread is this process's to reap too. */
		do {
			got = waitpid(-1, &status, __WALL);
			if (got > 0 && WIFSTOPPED(status))
				ptrace(PTRACE_CONT, got, NULL, NULL);
		} while (got > 0 && got != pid);
		expect(got == pid && WIFEXITED(status) && !WEXITSTATUS(status),
		       "a holder traced by a parent without the grant");
		if (got != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			printf("# round: got %d of %d, status 0x%x\n", got, pid,
			       status);
	}
}

static void run_process(void)
{
	pthread_t t[THREADS + 2];
	int i;

	for (i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, cycler, NULL);
	pthread_create(&t[THREADS], NULL, witness, NULL);
	pthread_create(&t[THREADS + 1], NULL, spawner, NULL);
	for (i = 0; i < THREADS + 2; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	int seconds, i, status;

	if (argc == 2 && !strcmp(argv[1], EXEC_PROBE))
		return grant_held() == 0 ? 0 : 1;
	seconds = argc > 1 ? atoi(argv[1]) : 10;
	setvbuf(stdout, NULL, _IOLBF, 0);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	dev_fd = open("/dev/bpf", O_RDONLY | O_CLOEXEC);
	printf("1..1\n");
	if (sh == MAP_FAILED || dev_fd < 0) {
		printf("not ok 1 stress: setup: %s\n", strerror(errno));
		return 1;
	}
	deadline = time(NULL) + seconds;
	for (i = 0; i < PROCESSES; i++)
		if (fork() == 0) {
			run_process();
			_exit(0);
		}
	/* A process of its own, whose only children are the racers. */
	if (fork() == 0) {
		traceme_rounds();
		_exit(0);
	}
	for (i = 0; i < PROCESSES + 1; i++)
		if (wait(&status) < 0 || !WIFEXITED(status))
			atomic_fetch_add(&sh->violations, 1);
	printf("%sok 1 stress: %d processes x %d threads for %d s: %ld checks, %ld violations\n",
	       sh->violations ? "not " : "", PROCESSES, THREADS + 2, seconds,
	       (long)sh->ops, (long)sh->violations);
	return sh->violations != 0;
}
