/* capops FILE DIR: drop to uid/gid 65534 without capabilities, then try
 * the capability-family calls on root's FILE (each fails with EPERM):
 * chown, fchown, lchown, fchownat, chmod, fchmod, setxattr, fsetxattr,
 * removexattr, mknod of a device in DIR, and setuid(0). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 3;
	if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
		return 4;
	char dev[4096];
	snprintf(dev, sizeof(dev), "%s/dev", argv[2]);
	int fails = 0;
	fails += chown(argv[1], 65534, 65534) != 0;
	fails += fchown(fd, 65534, 65534) != 0;
	fails += lchown(argv[1], 65534, 65534) != 0;
	fails += fchownat(AT_FDCWD, argv[1], 65534, 65534, 0) != 0;
	fails += chmod(argv[1], 0777) != 0;
	fails += fchmod(fd, 0777) != 0;
	fails += setxattr(argv[1], "trusted.ab", "x", 1, 0) != 0;
	fails += fsetxattr(fd, "trusted.ab", "x", 1, 0) != 0;
	fails += removexattr(argv[1], "trusted.ab") != 0;
	fails += mknod(dev, S_IFCHR | 0600, makedev(1, 3)) != 0;
	fails += setuid(0) != 0;
	return fails == 11 ? 0 : 10 + fails;
}
