// SPDX-License-Identifier: GPL-2.0
/* Kernel CPU mask and CPU list text <-> hwloc bitmaps. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cpumask.h"

int mask_parse_hex(const char *text, hwloc_bitmap_t set)
{
	const char *end = text + strlen(text);
	unsigned int base = 0;

	hwloc_bitmap_zero(set);
	while (end > text && isspace((unsigned char)end[-1]))
		end--;
	while (*text && isspace((unsigned char)*text))
		text++;
	if (end == text)
		return -EINVAL;
	/* Groups of up to 8 hex digits, the last group holds CPUs 0-31. */
	while (end > text) {
		const char *start = end;
		unsigned long word;
		char group[9], *stop;

		while (start > text && start[-1] != ',')
			start--;
		if (end - start < 1 || end - start > 8)
			return -EINVAL;
		memcpy(group, start, end - start);
		group[end - start] = '\0';
		word = strtoul(group, &stop, 16);
		if (*stop || !isxdigit((unsigned char)group[0]))
			return -EINVAL;
		for (unsigned int bit = 0; bit < 32; bit++)
			if (word & (1UL << bit))
				hwloc_bitmap_set(set, base + bit);
		base += 32;
		end = start > text ? start - 1 : start;
		if (start > text && end == text)
			return -EINVAL;	/* a leading comma */
	}
	return 0;
}

char *mask_format_hex(hwloc_const_bitmap_t set, unsigned int nbits)
{
	unsigned int groups = nbits ? (nbits + 31) / 32 : 1;
	char *out = xmalloc(groups * 9 + 1), *p = out;

	for (unsigned int g = groups; g-- > 0;) {
		unsigned long word = 0;
		unsigned int digits = 8;

		for (unsigned int bit = 0; bit < 32; bit++)
			if (hwloc_bitmap_isset(set, g * 32 + bit))
				word |= 1UL << bit;
		/* The kernel prints the top group only as wide as nbits needs. */
		if (g == groups - 1 && nbits % 32)
			digits = (nbits % 32 + 3) / 4;
		p += sprintf(p, "%0*lx", (int)digits, word);
		if (g)
			*p++ = ',';
	}
	*p = '\0';
	return out;
}

/* Larger than any kernel's NR_CPUS (8192): a typo, not a CPU. */
#define CPULIST_MAX 65535

/* One "N" of a list; the end of the number in *end. */
static int parse_cpu(const char *p, const char **end, unsigned long *cpu)
{
	char *stop;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	errno = 0;
	*cpu = strtoul(p, &stop, 10);
	*end = stop;
	return errno || *cpu > CPULIST_MAX ? -ERANGE : 0;
}

static int parse_list(const char *p, const char *limit, hwloc_bitmap_t set)
{
	const char *stop;

	for (;;) {
		unsigned long first, last;
		int ret = parse_cpu(p, &stop, &first);

		if (ret)
			return ret;
		last = first;
		if (stop < limit && *stop == '-') {
			ret = parse_cpu(stop + 1, &stop, &last);
			if (ret)
				return ret;
			if (last < first)
				return -EINVAL;
		}
		hwloc_bitmap_set_range(set, first, last);
		if (stop == limit)
			return 0;
		if (stop > limit || *stop != ',')
			return -EINVAL;
		p = stop + 1;
	}
}

int cpulist_parse(const char *text, hwloc_bitmap_t set)
{
	const char *p = text + strspn(text, " \t\n");
	size_t len = strcspn(p, "\n");
	int ret;

	hwloc_bitmap_zero(set);
	/* Only the first line counts; blanks around it are allowed. */
	while (len && isspace((unsigned char)p[len - 1]))
		len--;
	if (!len)
		return 0;
	ret = parse_list(p, p + len, set);
	if (ret)
		hwloc_bitmap_zero(set);
	return ret;
}

char *cpulist_format(hwloc_const_bitmap_t set)
{
	char *s;

	if (hwloc_bitmap_iszero(set))
		return xstrdup("");
	if (hwloc_bitmap_list_asprintf(&s, set) < 0) {
		err_msg("out of memory");
		exit(EXIT_FAIL);
	}
	return s;
}

int read_cpulist_file(const char *path, hwloc_bitmap_t set)
{
	char *text;
	int ret = read_text(path, &text);

	if (ret) {
		hwloc_bitmap_zero(set);
		return ret;
	}
	ret = cpulist_parse(text, set);
	free(text);
	return ret;
}

unsigned int possible_cpus(void)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	unsigned int n = 0;

	if (!read_cpulist_file("/sys/devices/system/cpu/possible", set) &&
	    !hwloc_bitmap_iszero(set))
		n = hwloc_bitmap_last(set) + 1;
	hwloc_bitmap_free(set);
	return n;
}
