#include <stdio.h>
#include <stdlib.h>

#include "heat.h"

int main(int argc, char **argv)
{
	struct heat_case c;
	if (argc != 3) {
		fprintf(stderr, "usage: %s CASE.ini OUT.csv\n", argv[0]);
		return 2;
	}
	int err = heat_read_case(argv[1], &c);
	if (err) {
		fprintf(stderr, "heat: %s: %s\n", argv[1], err == -1 ? "cannot open" : "incomplete case");
		return 1;
	}
	double r = heat_stability(&c);
	if (r > 0.5) {
		fprintf(stderr, "heat: unstable time step: r = alpha*dt/dx^2 = %.3f > 0.5 (dt at most %.3g)\n",
			r, 0.5 * c.dt / r);
		return 1;
	}
	double *t = malloc(sizeof(double) * c.nx);
	int steps = heat_solve(&c, t);
	FILE *out = fopen(argv[2], "w");
	if (steps < 0 || !t || !out) {
		fprintf(stderr, "heat: cannot write %s\n", argv[2]);
		return 1;
	}
	fprintf(out, "x,T\n");
	for (int i = 0; i < c.nx; i++)
		fprintf(out, "%.6f,%.8f\n", i * c.length / (c.nx - 1), t[i]);
	fclose(out);
	fprintf(stderr, "heat: %d steps of %g s, r = %.3f, wrote %s\n", steps, c.dt, r, argv[2]);
	return 0;
}
