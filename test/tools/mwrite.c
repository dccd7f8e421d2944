// SPDX-License-Identifier: GPL-2.0
/*
 * mwrite - time repeated writes to one sysfs file.
 *
 * usage: mwrite FILE COUNT VALUE...
 * Opens FILE once and writes the VALUEs in turn (pwrite at offset 0, as a
 * fresh `echo VALUE > FILE` would), COUNT writes in all, so the time is
 * the kernel's store path and not process start-up. Prints the count, the
 * total time and the mean time per write. Exit 1 on the first failed write.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

int main(int argc, char **argv)
{
	struct timespec a, b;
	long count, i;
	double ns;
	int fd;

	if (argc < 4) {
		fprintf(stderr, "usage: mwrite FILE COUNT VALUE...\n");
		return 2;
	}
	count = tool_num(argv[2], 1, 100000000);
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "mwrite: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < count; i++) {
		const char *v = argv[3 + i % (argc - 3)];
		ssize_t len = strlen(v);

		if (pwrite(fd, v, len, 0) != len) {
			fprintf(stderr, "mwrite: write %ld of '%s' to %s: %s\n", i, v,
				argv[1], strerror(errno));
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("mwrite: %ld writes to %s in %.6f s: %.1f us per write\n", count,
	       argv[1], ns / 1e9, ns / 1e3 / count);
	return 0;
}
