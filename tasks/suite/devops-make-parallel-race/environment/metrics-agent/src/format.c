#include <stdio.h>

#include "agent.h"

int metric_count(void)
{
	int n = 0;
#define METRIC(name, fn) n++;
#include "metrics.def.h"
#undef METRIC
	return n;
}

void format_sample(const struct sample *s, char *buf, size_t n)
{
	snprintf(buf, n, "%s %.3f", s->name, s->value);
}
