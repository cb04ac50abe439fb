#ifndef WORDFREQ_H
#define WORDFREQ_H

#include <stddef.h>

struct entry {
	char *word;
	long count;
};

struct table {
	struct entry *items;
	size_t len, cap;
};

void table_add(struct table *t, const char *word);
void table_sort(struct table *t);
void chart_print(const struct table *t, size_t limit);

#endif
