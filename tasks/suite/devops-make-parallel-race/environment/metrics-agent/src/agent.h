#ifndef AGENT_H
#define AGENT_H

#include <stddef.h>

struct sample {
	const char *name;
	double value;
};

double plugin_cpu(void);
double plugin_mem(void);

int collect(struct sample *out, int max);
void format_sample(const struct sample *s, char *buf, size_t n);
int metric_count(void);

#endif
