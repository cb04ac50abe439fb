#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heat.h"

/* The explicit (FTCS) scheme is stable for r = alpha dt / dx^2 <= 1/2. */
double heat_stability(const struct heat_case *c)
{
	double dx = c->length / (c->nx - 1);
	return c->alpha * c->dt / (dx * dx);
}

int heat_solve(const struct heat_case *c, double *temp)
{
	int n = c->nx, steps = (int)lround(c->t_end / c->dt);
	double dx = c->length / (n - 1), r = heat_stability(c);
	double *next = malloc(sizeof(double) * n);
	if (!next)
		return -1;
	for (int i = 0; i < n; i++)
		temp[i] = c->amplitude * sin(M_PI * i * dx / c->length);
	temp[0] = temp[n - 1] = 0;
	for (int s = 0; s < steps; s++) {
		next[0] = next[n - 1] = 0;
		for (int i = 1; i < n - 1; i++)
			next[i] = temp[i] + r * (temp[i - 1] - 2 * temp[i] + temp[i + 1]);
		memcpy(temp, next, sizeof(double) * n);
	}
	free(next);
	return steps;
}
