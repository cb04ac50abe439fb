#ifndef SPLINEKIT_H
#define SPLINEKIT_H

#include <stddef.h>

/* Solves the tridiagonal system with sub-diagonal a (a[0] unused),
 * diagonal b, super-diagonal c (c[n-1] unused) and right-hand side d;
 * d is overwritten with the solution. Returns 0, or -1 on failure. */
int sk_tridiag(const double *a, const double *b, const double *c, double *d, size_t n);

/* Second derivatives m[0..n-1] of the natural cubic spline through
 * (x[i], y[i]), x strictly increasing. Returns 0, or -1 on bad input. */
int sk_natural(const double *x, const double *y, size_t n, double *m);

/* The spline at t. */
double sk_eval(const double *x, const double *y, const double *m, size_t n, double t);

#endif
