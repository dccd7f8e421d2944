/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The text of /sys/kernel/xps_steer/<dev>/map and of tx-<n>/xps_cpus_list:
 * parsing into CPU masks. Pure logic on caller-owned buffers, like map.c,
 * so the same code also builds in userspace for the fuzzer (test/fuzz/).
 */
#ifndef XPS_STEER_MAPTEXT_H
#define XPS_STEER_MAPTEXT_H

#include <linux/types.h>

/* Where a map text was refused, and why, for the caller's log line. */
struct xps_steer_maptext_err {
	unsigned int line;	/* 1 for the first line */
	const char *why;
};

int xps_steer_parse_cpulist(const char *list, unsigned long *mask,
			    unsigned int nr_cpus);
int xps_steer_maptext_parse(char *text, size_t len, const unsigned long *cur,
			    unsigned long *next, unsigned long *seen,
			    unsigned int mask_longs, unsigned int nr_queues,
			    unsigned int active, unsigned int nr_cpus,
			    struct xps_steer_maptext_err *err);

#endif /* XPS_STEER_MAPTEXT_H */
