/* int80 PATH: opens PATH through the ia32 syscall ABI (int 0x80) from a
 * 64-bit process; the tracer must see it like any other open. PATH is
 * copied to static storage, below 4 GiB in a non-PIE binary. */
#include <string.h>

static char path[4096];

int main(int argc, char **argv)
{
	long ret;
	if (argc != 2 || strlen(argv[1]) >= sizeof(path))
		return 2;
	strcpy(path, argv[1]);
	/* ia32 open(path, O_RDONLY) is syscall 5 */
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(5), "b"(path), "c"(0), "d"(0) : "memory");
	return ret >= 0 ? 0 : 1;
}
