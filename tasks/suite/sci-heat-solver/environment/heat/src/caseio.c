#include <stdio.h>
#include <string.h>

#include "heat.h"

/* Reads "key = value" lines; '#' starts a comment. */
int heat_read_case(const char *path, struct heat_case *c)
{
	char line[256], key[64];
	double v;
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	memset(c, 0, sizeof(*c));
	c->amplitude = 1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || sscanf(line, " %63[a-z_] = %lf", key, &v) != 2)
			continue;
		if (!strcmp(key, "nx")) c->nx = (int)v;
		else if (!strcmp(key, "length")) c->length = v;
		else if (!strcmp(key, "alpha")) c->alpha = v;
		else if (!strcmp(key, "dt")) c->dt = v;
		else if (!strcmp(key, "t_end")) c->t_end = v;
		else if (!strcmp(key, "amplitude")) c->amplitude = v;
	}
	fclose(f);
	return (c->nx > 2 && c->length > 0 && c->alpha > 0 && c->dt > 0 && c->t_end > 0) ? 0 : -2;
}
