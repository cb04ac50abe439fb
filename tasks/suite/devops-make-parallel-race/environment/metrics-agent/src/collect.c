#include "agent.h"

static const struct {
	const char *name;
	double (*read)(void);
} metrics[] = {
#define METRIC(name, fn) {#name, fn},
#include "metrics.def.h"
#undef METRIC
};

int collect(struct sample *out, int max)
{
	int n = 0;
	for (size_t i = 0; i < sizeof metrics / sizeof metrics[0] && n < max; i++, n++) {
		out[n].name = metrics[i].name;
		out[n].value = metrics[i].read();
	}
	return n;
}
