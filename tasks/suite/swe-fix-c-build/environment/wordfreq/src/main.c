#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wordfreq.h"

int main(int argc, char **argv)
{
	size_t limit = 10;
	int opt;
	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n') {
			fprintf(stderr, "usage: wordfreq [-n N] < text\n");
			return 2;
		}
		limit = strtoul(optarg, NULL, 10);
	}
	struct table t = {0};
	char word[256];
	size_t n = 0;
	int c;
	while ((c = getchar()) != EOF) {
		if (isalpha(c) && n < sizeof word - 1) {
			word[n++] = (char)tolower(c);
			continue;
		}
		if (n > 0) {
			word[n] = '\0';
			table_add(&t, word);
			n = 0;
		}
	}
	if (n > 0) {
		word[n] = '\0';
		table_add(&t, word);
	}
	table_sort(&t);
	chart_print(&t, limit);
	return 0;
}
