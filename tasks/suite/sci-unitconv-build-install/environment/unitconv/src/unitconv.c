/* unitconv FROM TO — converts one value per line on stdin. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int conv(const char *from, const char *to, double x, double *y)
{
	if (!strcmp(from, "degC") && !strcmp(to, "K")) { *y = x + 273.15; return 0; }
	if (!strcmp(from, "K") && !strcmp(to, "degC")) { *y = x - 273.15; return 0; }
	if (!strcmp(from, "bar") && !strcmp(to, "Pa")) { *y = x * 1e5; return 0; }
	if (!strcmp(from, "dBm") && !strcmp(to, "mW")) { *y = pow(10.0, x / 10.0); return 0; }
	if (!strcmp(from, "mW") && !strcmp(to, "dBm")) { *y = 10.0 * log10(x); return 0; }
	return -1;
}

int main(int argc, char **argv)
{
	char line[256];
	if (argc != 3) {
		fprintf(stderr, "usage: unitconv FROM TO < values\n");
		return 2;
	}
	while (fgets(line, sizeof line, stdin)) {
		char *end;
		double x = strtod(line, &end), y;
		if (end == line)
			continue; /* blank or comment */
		if (conv(argv[1], argv[2], x, &y)) {
			fprintf(stderr, "unitconv: cannot convert %s to %s\n", argv[1], argv[2]);
			return 1;
		}
		printf("%.6f\n", y);
	}
	return 0;
}
