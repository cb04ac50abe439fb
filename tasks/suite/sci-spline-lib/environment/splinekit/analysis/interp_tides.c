/* Hourly water levels from an irregularly sampled tide gauge record:
 * reads "minutes,level_m" (a header line, then minutes since the start of
 * the record), writes "hour,level_m" for every full hour inside the record. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <splinekit.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: interp_tides RECORD.csv\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	size_t n = 0, cap = 1024;
	double *x = malloc(cap * sizeof *x), *y = malloc(cap * sizeof *y);
	char line[256];
	if (!fgets(line, sizeof line, f))
		return 1;
	while (fgets(line, sizeof line, f)) {
		if (n == cap) {
			cap *= 2;
			x = realloc(x, cap * sizeof *x);
			y = realloc(y, cap * sizeof *y);
		}
		if (sscanf(line, "%lf,%lf", &x[n], &y[n]) == 2)
			n++;
	}
	fclose(f);
	double *m = malloc(n * sizeof *m);
	if (sk_natural(x, y, n, m) != 0) {
		fprintf(stderr, "interp_tides: bad record (times must increase)\n");
		return 1;
	}
	printf("hour,level_m\n");
	for (long h = (long)ceil(x[0] / 60); h * 60 <= x[n - 1]; h++)
		printf("%ld,%.4f\n", h, sk_eval(x, y, m, n, h * 60.0));
	return 0;
}
