/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tool.h - helpers the test tools share. Header-only on purpose: every
 * tool is still built by one gcc call on its .c file (test/vm.sh,
 * test/install-test.sh). Include after <errno.h>, with _GNU_SOURCE.
 */
#ifndef XPS_STEER_TOOL_H
#define XPS_STEER_TOOL_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* A whole decimal/hex/octal number in [min, max], or exit 2 with a message. */
static inline long tool_num(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *s == '\0' || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "%s: bad number '%s' (%ld..%ld)\n",
			program_invocation_short_name, s, min, max);
		exit(2);
	}
	return v;
}

/* Monotonic seconds, for run-time limits and rates. */
static inline double tool_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
