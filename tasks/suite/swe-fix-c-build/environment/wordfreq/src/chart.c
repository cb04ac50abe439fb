#include <math.h>
#include <stdio.h>

#include "wordfreq.h"

void chart_print(const struct table *t, size_t limit)
{
	for (size_t i = 0; i < t->len && i < limit; i++) {
		int bar = 1 + (int)(4.0 * log10((double)t->items[i].count));
		printf("%ld %s ", t->items[i].count, t->items[i].word);
		for (int j = 0; j < bar; j++)
			putchar('#');
		putchar('\n');
	}
}
