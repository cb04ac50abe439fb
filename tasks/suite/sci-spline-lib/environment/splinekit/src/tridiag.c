#include <stdlib.h>

#include "splinekit.h"

int sk_tridiag(const double *a, const double *b, const double *c, double *d, size_t n)
{
	if (n == 0)
		return 0;
	double *cp = calloc(n, sizeof *cp);
	if (!cp)
		return -1;
	cp[0] = c[0] / b[0];
	d[0] = d[0] / b[0];
	for (size_t i = 1; i < n; i++) {
		double den = b[i] - a[i] * cp[i];
		cp[i] = c[i] / den;
		d[i] = (d[i] - a[i] * d[i - 1]) / den;
	}
	for (size_t i = n - 1; i-- > 0;)
		d[i] -= cp[i] * d[i + 1];
	free(cp);
	return 0;
}
