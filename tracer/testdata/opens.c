/* opens N PATH: open and close PATH N times (load workload). */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	long n = atol(argv[1]);
	for (long i = 0; i < n; i++) {
		int fd = open(argv[2], O_RDONLY);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}
