# build rules of the recorder tools
CC ?= cc
CFLAGS ?= -O2 -Wall

build/config.h:
	mkdir -p build
	printf '#define SAMPLE_RATE %s\n' '$(SAMPLE_RATE)' > $@

build/durations: src/durations.c build/config.h
	$(CC) $(CFLAGS) -Ibuild -o $@ src/durations.c
