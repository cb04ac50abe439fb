/* race N A B: open the path in a buffer N times while a second thread
 * keeps rewriting the buffer between A and B (same length): the name the
 * kernel reads at open and the one in memory at sys_exit may differ.
 * main then returns with the thread still running: both threads exit at
 * once (one process exit). */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[4096];
static const char *names[2];

static void *flip(void *arg)
{
	(void)arg;
	size_t n = strlen(names[0]);
	for (unsigned i = 0;; i++)
		memcpy(buf, names[i & 1], n);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4 || strlen(argv[2]) != strlen(argv[3]))
		return 2;
	long n = atol(argv[1]);
	names[0] = argv[2], names[1] = argv[3];
	strcpy(buf, names[0]);
	pthread_t th;
	if (pthread_create(&th, NULL, flip, NULL))
		return 3;
	for (long i = 0; i < n; i++) {
		int fd = open(buf, O_RDONLY);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}
