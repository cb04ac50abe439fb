/* opath FILE MOUNTDIR: open a NULL name (EFAULT), open FILE with O_PATH,
 * then by handle (name_to_handle_at + open_by_handle_at relative to
 * MOUNTDIR). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	if (syscall(SYS_openat, AT_FDCWD, NULL, O_RDONLY) >= 0)
		return 6;
	int fd = open(argv[1], O_PATH);
	if (fd < 0)
		return 3;
	close(fd);
	struct file_handle *h = malloc(sizeof(*h) + MAX_HANDLE_SZ);
	h->handle_bytes = MAX_HANDLE_SZ;
	int mnt;
	if (name_to_handle_at(AT_FDCWD, argv[1], h, &mnt, 0) < 0) {
		perror("name_to_handle_at");
		return 4;
	}
	int mfd = open(argv[2], O_RDONLY | O_DIRECTORY);
	fd = open_by_handle_at(mfd, h, O_RDONLY);
	if (fd < 0) {
		perror("open_by_handle_at");
		return 5;
	}
	return 0;
}
