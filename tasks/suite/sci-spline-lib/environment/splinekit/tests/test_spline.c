#include <math.h>
#include <stdio.h>

#include "splinekit.h"

static int failures;

static void expect(const char *what, double got, double want, double tol)
{
	int ok = fabs(got - want) <= tol;
	printf("%s %s: got %.9f, want %.9f\n", ok ? "ok  " : "FAIL", what, got, want);
	if (!ok)
		failures++;
}

int main(void)
{
	/* Three points on a line, irregular spacing: the spline is the line. */
	double lx[] = {0, 0.5, 2, 2.25, 4}, ly[5], lm[5];
	for (int i = 0; i < 5; i++)
		ly[i] = 2 * lx[i] + 1;
	sk_natural(lx, ly, 5, lm);
	expect("line at 1.3", sk_eval(lx, ly, lm, 5, 1.3), 3.6, 1e-12);
	expect("line at 3.9", sk_eval(lx, ly, lm, 5, 3.9), 8.8, 1e-12);

	/* A worked example: (0,0) (1,1) (2,0) (3,1), m = 0, -4, 4, 0. */
	double x[] = {0, 1, 2, 3}, y[] = {0, 1, 0, 1}, m[4];
	sk_natural(x, y, 4, m);
	expect("m[1]", m[1], -4, 1e-12);
	expect("m[2]", m[2], 4, 1e-12);
	expect("zig-zag at 0.5", sk_eval(x, y, m, 4, 0.5), 0.75, 1e-12);
	expect("zig-zag at 1.5", sk_eval(x, y, m, 4, 1.5), 0.5, 1e-12);
	expect("zig-zag at 2.5", sk_eval(x, y, m, 4, 2.5), 0.25, 1e-12);
	expect("zig-zag at the last knot", sk_eval(x, y, m, 4, 3), 1, 1e-12);

	/* sin over a period with 25 knots: close to sin inside. */
	double sx[25], sy[25], sm[25], worst = 0;
	for (int i = 0; i < 25; i++) {
		sx[i] = 2 * M_PI * i / 24;
		sy[i] = sin(sx[i]);
	}
	sk_natural(sx, sy, 25, sm);
	for (double t = 0.5; t < 2 * M_PI - 0.5; t += 0.01) {
		double e = fabs(sk_eval(sx, sy, sm, 25, t) - sin(t));
		if (e > worst)
			worst = e;
	}
	expect("sin max error", worst, 0, 2e-4);

	printf("%d failure(s)\n", failures);
	return failures != 0;
}
