/* durations: for each recording (a file of one sample count per line, one
 * line per chunk), its name, total samples and duration in seconds. */
#include <stdio.h>
#include <string.h>
#include "config.h"

int main(int argc, char **argv) {
	printf("recording,samples,seconds\n");
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "r");
		if (!f) { perror(argv[i]); return 1; }
		long long total = 0, n;
		while (fscanf(f, "%lld", &n) == 1) total += n;
		fclose(f);
		const char *base = strrchr(argv[i], '/');
		base = base ? base + 1 : argv[i];
		printf("%.*s,%lld,%.3f\n", (int)(strcspn(base, ".")), base, total, (double)total / SAMPLE_RATE);
	}
	return 0;
}
