#ifndef HEAT_H
#define HEAT_H

/* One 1-D heat conduction case: a rod of length L, held at 0 at both ends,
 * starting from T(x, 0) = amplitude * sin(pi x / L). */
struct heat_case {
	int nx;          /* grid points, ends included */
	double length;   /* m */
	double alpha;    /* thermal diffusivity, m^2/s */
	double dt;       /* time step, s */
	double t_end;    /* s */
	double amplitude;
};

int heat_read_case(const char *path, struct heat_case *c);
int heat_solve(const struct heat_case *c, double *temp);
double heat_stability(const struct heat_case *c);

#endif
