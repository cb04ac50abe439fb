/* tree N DIR: start N children one after the other; child i execs this
 * program as "tree child DIR/i", which opens DIR/i and exits. After every
 * even child the parent asks the kernel to hand out that child's pid
 * again (ns_last_pid, as CRIU does; root only), so the next child reuses
 * it; where that is refused it burns pids with short-lived threads until
 * pids wrap around (pid_max). It prints how many children got a pid an
 * earlier child had. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *nothing(void *arg) { return arg; }

/* reuse_next makes pid the next pid the kernel hands out (unless another
 * process forks first); it reports whether the kernel took the request. */
static int reuse_next(pid_t pid)
{
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
	if (fd < 0)
		return 0;
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%d", (int)pid - 1);
	int ok = write(fd, buf, len) == len;
	close(fd);
	return ok;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "child") == 0) {
		int fd = open(argv[2], O_RDONLY);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (argc != 3)
		return 2;
	long n = atol(argv[1]);
	static unsigned char seen[1 << 22];
	long reused = 0;
	for (long i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%ld", argv[2], i);
		pid_t pid = fork();
		if (pid < 0)
			return 3;
		if (pid == 0) {
			execl("/proc/self/exe", argv[0], "child", path, (char *)NULL);
			_exit(127);
		}
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 4;
		if (pid < (1 << 22)) {
			reused += seen[pid];
			seen[pid] = 1;
		}
		if (i % 2 == 0 && reuse_next(pid))
			continue;
		for (int j = 0; j < 3; j++) {
			pthread_t th;
			if (pthread_create(&th, NULL, nothing, NULL) == 0)
				pthread_join(th, NULL);
		}
	}
	printf("%ld\n", reused);
	return 0;
}
