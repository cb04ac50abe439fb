#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "version.h"

int main(int argc, char **argv)
{
	if (argc != 2 || strcmp(argv[1], "--once") != 0) {
		fprintf(stderr, "usage: metrics-agent --once\n");
		return 2;
	}
	struct sample s[16];
	char line[128];
	int n = collect(s, 16);
	printf("metrics-agent %s (%d metrics)\n", AGENT_VERSION, metric_count());
	for (int i = 0; i < n; i++) {
		format_sample(&s[i], line, sizeof line);
		puts(line);
	}
	return 0;
}
