#include <stdlib.h>
#include <string.h>

#include "wordfreq.h"

void table_add(struct table *t, const char *word)
{
	for (size_t i = 0; i < t->len; i++) {
		if (strcmp(t->items[i].word, word) == 0) {
			t->items[i].count++;
			return;
		}
	}
	if (t->len == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->items = realloc(t->items, t->cap * sizeof *t->items);
		if (!t->items)
			abort();
	}
	t->items[t->len].word = strdup(word);
	t->items[t->len].count = 1;
	t->len++;
}

static int by_count(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return (y->count > x->count) - (y->count < x->count);
}

void table_sort(struct table *t)
{
	qsort(t->items, t->len, sizeof *t->items, by_count);
}
