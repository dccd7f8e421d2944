/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU sets as hwloc bitmaps, in the kernel's two spellings:
 * hex groups ("00000000,0000000f", as xps_cpus) and lists ("0-3,8", as
 * xps_cpus_list and the map file).
 */
#ifndef XPS_STEER_CPUMASK_H
#define XPS_STEER_CPUMASK_H

#include <hwloc.h>

/* Parse hex groups into set; 0 or -EINVAL. */
int mask_parse_hex(const char *text, hwloc_bitmap_t set);
/* Hex groups as the kernel prints them for nbits CPUs; free() it. */
char *mask_format_hex(hwloc_const_bitmap_t set, unsigned int nbits);
/*
 * Parse a CPU list ("0-3,8"; "" or blanks: the empty set; only the first
 * line counts): 0, -EINVAL (malformed, a reversed range) or -ERANGE (a
 * number above 65535, more than any kernel has CPUs).
 */
int cpulist_parse(const char *text, hwloc_bitmap_t set);
/* The set as a CPU list, "" when empty; free() it. */
char *cpulist_format(hwloc_const_bitmap_t set);
/* nr_cpu_ids: one more than the last CPU in /sys/devices/system/cpu/possible. */
unsigned int possible_cpus(void);
/* Read a CPU list file (isolated, nohz_full, online...) into set; -errno. */
int read_cpulist_file(const char *path, hwloc_bitmap_t set);

#endif
