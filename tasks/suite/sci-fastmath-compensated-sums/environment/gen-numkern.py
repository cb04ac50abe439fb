#!/usr/bin/env python3
"""Generates numkern (60 weighted-sum kernels, 4 compensated sums, a registry,
a checker and its expected values) at image build time."""
import math
import os
import sys
from fractions import Fraction

ROOT = sys.argv[1]
N_PLAIN = 60
COMPENSATED = {
    "sum_kahan": """double sum_kahan(const double *x, size_t n)
{
	double s = 0.0, c = 0.0;
	for (size_t i = 0; i < n; i++) {
		double y = x[i] - c;
		double t = s + y;
		c = (t - s) - y; /* the low part lost in s + y */
		s = t;
	}
	return s;
}
""",
    "sum_neumaier": """double sum_neumaier(const double *x, size_t n)
{
	double s = 0.0, c = 0.0;
	for (size_t i = 0; i < n; i++) {
		double t = s + x[i];
		if (fabs(s) >= fabs(x[i]))
			c += (s - t) + x[i];
		else
			c += (x[i] - t) + s;
		s = t;
	}
	return s + c;
}
""",
    "sum_twosum": """double sum_twosum(const double *x, size_t n)
{
	/* Knuth's TwoSum, error-free: s + e == a + b exactly */
	double s = 0.0, e = 0.0;
	for (size_t i = 0; i < n; i++) {
		double a = s, b = x[i];
		s = a + b;
		double bb = s - a;
		e += (a - (s - bb)) + (b - bb);
	}
	return s + e;
}
""",
    "dot_kahan": """double dot_kahan(const double *x, size_t n)
{
	/* x . w with w[i] = 1, compensated: the checker's vectors are sums in disguise */
	double s = 0.0, c = 0.0;
	for (size_t i = 0; i < n; i++) {
		double y = x[i] * 1.0 - c;
		double t = s + y;
		c = (t - s) - y;
		s = t;
	}
	return s;
}
""",
}


def w(k, i):
    return 1.0 + (i % (k + 2)) * 0.5


def write(rel, text):
    path = os.path.join(ROOT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


names = [f"k_{k:02d}" for k in range(N_PLAIN)] + sorted(COMPENSATED)
for k in range(N_PLAIN):
    write(f"src/k_{k:02d}.c", f"""#include "numkern.h"

/* weighted sum, weights 1 + (i mod {k + 2}) / 2 */
double k_{k:02d}(const double *x, size_t n)
{{
	double s = 0.0;
	for (size_t i = 0; i < n; i++)
		s += (1.0 + (double)(i % {k + 2}) * 0.5) * x[i];
	return s;
}}
""")
for name, body in COMPENSATED.items():
    write(f"src/{name}.c", '#include <math.h>\n#include "numkern.h"\n\n' + body)
write("include/numkern.h", "#ifndef NUMKERN_H\n#define NUMKERN_H\n#include <stddef.h>\n\n"
      + "".join(f"double {n}(const double *x, size_t n);\n" for n in names)
      + "\nstruct nk_kernel { const char *name; double (*fn)(const double *, size_t); int compensated; };\n"
      + "extern const struct nk_kernel nk_kernels[];\nextern const size_t nk_count;\n#endif\n")
write("src/registry.c", '#include "numkern.h"\n\nconst struct nk_kernel nk_kernels[] = {\n'
      + "".join(f'\t{{"{n}", {n}, {int(n in COMPENSATED)}}},\n' for n in names)
      + "};\nconst size_t nk_count = sizeof nk_kernels / sizeof nk_kernels[0];\n")

# the checker's two vectors: a well-conditioned one (every kernel) and an
# ill-conditioned one (compensated kernels only: exact answers expected)
smooth = [math.sin(0.001 * i) + 2.0 for i in range(4000)]
ill = [1e16] + [1.0] * 50000 + [-1e16] + [0.25] * 4000
exp = ["kernel\tvector\texpected\ttolerance"]
for n in names:
    if n in COMPENSATED:
        exp.append(f"{n}\tsmooth\t{float(sum(Fraction(v) for v in smooth))!r}\t1e-13")
        exp.append(f"{n}\till\t{float(sum(Fraction(v) for v in ill))!r}\t0")
    else:
        k = int(n[2:])
        exact = sum(Fraction(w(k, i)) * Fraction(v) for i, v in enumerate(smooth))
        exp.append(f"{n}\tsmooth\t{float(exact)!r}\t1e-9")
write("tests/expected.tsv", "\n".join(exp) + "\n")
write("tests/check.c", r'''#include <math.h>
#include <stdio.h>
#include <string.h>
#include "numkern.h"

/* Runs every kernel on the vectors of tests/expected.tsv; prints one line
 * per case and exits 1 if any is outside its relative tolerance. */
static double smooth[4000], ill[54002];

static void vectors(void)
{
	for (int i = 0; i < 4000; i++)
		smooth[i] = sin(0.001 * i) + 2.0;
	ill[0] = 1e16;
	for (int i = 1; i <= 50000; i++)
		ill[i] = 1.0;
	ill[50001] = -1e16;
	for (int i = 50002; i < 54002; i++)
		ill[i] = 0.25;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "tests/expected.tsv";
	FILE *f = fopen(path, "r");
	char line[256], name[64], vec[16];
	double want, tol;
	int bad = 0, cases = 0;
	if (!f) {
		perror(path);
		return 2;
	}
	vectors();
	fgets(line, sizeof line, f);
	while (fgets(line, sizeof line, f)) {
		if (sscanf(line, "%63s %15s %lf %lf", name, vec, &want, &tol) != 4)
			continue;
		const struct nk_kernel *k = NULL;
		for (size_t i = 0; i < nk_count; i++)
			if (strcmp(nk_kernels[i].name, name) == 0)
				k = &nk_kernels[i];
		if (!k) {
			printf("MISSING %s\n", name);
			bad++;
			continue;
		}
		int is_ill = strcmp(vec, "ill") == 0;
		double got = is_ill ? k->fn(ill, 54002) : k->fn(smooth, 4000);
		double err = fabs(got - want) / fabs(want);
		int ok = err <= tol;
		printf("%s %s %s got=%.17g want=%.17g\n", ok ? "OK" : "FAIL", name, vec, got, want);
		bad += !ok;
		cases++;
	}
	printf("%d cases, %d failed\n", cases, bad);
	return bad ? 1 : 0;
}
''')
write("Makefile", """# numkern: the weighted-sum and compensated-summation kernels.
# -ffast-math since the benchmark sprint (BENCH-212): the plain kernels
# vectorise with it, 2.4x on the reference box.
CC = cc
CFLAGS = -O2 -ffast-math -Iinclude
SRCS = $(wildcard src/*.c)
OBJS = $(SRCS:src/%.c=obj/%.o)

all: lib/libnumkern.a bin/check

obj/%.o: src/%.c include/numkern.h
	$(CC) $(CFLAGS) -c $< -o $@

lib/libnumkern.a: $(OBJS)
	ar rcs $@ $(OBJS)

bin/check: tests/check.c lib/libnumkern.a
	$(CC) $(CFLAGS) tests/check.c lib/libnumkern.a -lm -o $@

check: all
	./bin/check tests/expected.tsv

clean:
	rm -f obj/*.o lib/*.a bin/check

.PHONY: all check clean
""")
write("README.md", """# numkern

Weighted-sum kernels for the spectra pipeline, and four compensated sums
(`sum_kahan`, `sum_neumaier`, `sum_twosum`, `dot_kahan`) the calibration step
relies on for exact totals of ill-conditioned series.

    make -j8        # lib/libnumkern.a, bin/check
    make check      # every kernel against tests/expected.tsv

Build results go to `obj/`, `lib/` and `bin/`; CI keeps `make check`'s output
in `results/`.
""")
for d in ("obj", "lib", "bin", "results"):
    os.makedirs(os.path.join(ROOT, d), exist_ok=True)
