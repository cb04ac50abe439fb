/* forker WIDTH DEPTH DIR: a tree where each process forks WIDTH children
 * (DEPTH levels); each child opens DIR/<pid> for writing, then exits. The
 * tree has WIDTH + WIDTH^2 + ... + WIDTH^DEPTH processes besides the root. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void grow(int width, int depth, const char *dir)
{
	for (int i = 0; i < width; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			exit(1);
		}
		if (pid == 0) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/%d", dir, (int)getpid());
			int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd >= 0)
				close(fd);
			if (depth > 1)
				grow(width, depth - 1, dir);
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	grow(atoi(argv[1]), atoi(argv[2]), argv[3]);
	return 0;
}
