/* threads DIR: 8 threads, each creates and opens DIR/t<i>-<j> 50 times. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static const char *dir;

static void *work(void *arg)
{
	long t = (long)arg;
	for (int j = 0; j < 50; j++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/t%ld-%d", dir, t, j);
		int fd = open(path, O_WRONLY | O_CREAT, 0644);
		if (fd >= 0)
			close(fd);
		fd = openat(AT_FDCWD, path, O_RDONLY);
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[8];
	if (argc != 2)
		return 2;
	dir = argv[1];
	for (long i = 0; i < 8; i++)
		pthread_create(&th[i], NULL, work, (void *)i);
	for (int i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	return 0;
}
