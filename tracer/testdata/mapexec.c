/* mapexec FILE LIB: map FILE readable and make the mapping executable
 * (mprotect), make anonymous memory executable (no event), map FILE
 * writable only (no event), then dlopen LIB. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 3;
	void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED || mprotect(p, 4096, PROT_READ | PROT_EXEC) != 0)
		return 4;
	void *a = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED || mprotect(a, 4096, PROT_READ | PROT_EXEC) != 0)
		return 5;
	if (mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED)
		return 6;
	if (!dlopen(argv[2], RTLD_NOW)) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 7;
	}
	return 0;
}
