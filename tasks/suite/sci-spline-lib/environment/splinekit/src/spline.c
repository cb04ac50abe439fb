#include <stdlib.h>

#include "splinekit.h"

int sk_natural(const double *x, const double *y, size_t n, double *m)
{
	if (n < 2)
		return -1;
	for (size_t i = 0; i < n; i++)
		m[i] = 0;
	if (n == 2)
		return 0;
	size_t k = n - 2;
	double *a = malloc(4 * k * sizeof *a);
	if (!a)
		return -1;
	double *b = a + k, *c = b + k, *d = c + k;
	for (size_t i = 0; i < k; i++) {
		double h0 = x[i + 1] - x[i], h1 = x[i + 2] - x[i + 1];
		if (h0 <= 0 || h1 <= 0) {
			free(a);
			return -1;
		}
		a[i] = h0;
		b[i] = 2 * (h0 + h1);
		c[i] = h1;
		d[i] = 6 * ((y[i + 2] - y[i + 1]) / h1 - (y[i + 1] - y[i]) / h0);
	}
	int rc = sk_tridiag(a, b, c, d, k);
	for (size_t i = 0; rc == 0 && i < k; i++)
		m[i] = d[i];
	free(a);
	return rc;
}

double sk_eval(const double *x, const double *y, const double *m, size_t n, double t)
{
	size_t lo = 0, hi = n - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (x[mid] > t)
			hi = mid;
		else
			lo = mid;
	}
	double h = x[hi] - x[lo];
	double A = (x[hi] - t) / h, B = (t - x[lo]) / h;
	return A * y[lo] + B * y[hi] + ((A * A * A - A) * m[lo] + (B * B * B - B) * m[hi]) * h * h / 6;
}
