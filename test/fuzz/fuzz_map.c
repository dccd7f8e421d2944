// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_map - libFuzzer harness for xps_steer_map_build() (src/map.c,
 * compiled unchanged against the shims in include/linux/).
 *
 * Every input is decoded into (nr_cpus, nr_queues, mask_longs, masks, and
 * whether the allocation fails), the map is built, and the result is
 * compared with a reference model that is too simple to be wrong:
 *
 *   for each CPU c < nr_cpus: the ascending list of queues q < nr_queues
 *   whose mask has bit c; bits at or above nr_cpus do not exist.
 *
 * The map must be ERR_PTR(-EINVAL) for more than XPS_STEER_MAX_QUEUES
 * (65535) queues, NULL when every list is empty, ERR_PTR(-ENOMEM) when
 * the (only) allocation fails, and otherwise: nr_cpus entries, entry c
 * holding CPU c's list at queues[first .. first + len - 1] and its first
 * queue inline (queue, when len is not 0), the lists back
 * to back in CPU order from 0 (so total = sum of the weights), an
 * allocation of exactly header + nr_cpus entries + total queue numbers,
 * and the masks left untouched. Any difference aborts (a finding);
 * AddressSanitizer catches every access outside the masks or the map,
 * UndefinedBehaviorSanitizer (with the integer checks) any overflow or
 * truncation, LeakSanitizer a map that is not freed by map_free().
 *
 * Input layout (all little-endian):
 *   byte 0: flags
 *     bit 0  many queues (if bits 6 and 7 are set too): nr_queues = 65536 -
 *            (raw % 512), up to the most a device can have (65536, one
 *            more than the map takes), so queue numbers near U16_MAX are
 *            stored; nr_cpus = raw % 66
 *            (keeps the model's work bounded)
 *     bit 1-2 extra longs per mask beyond BITS_TO_LONGS(nr_cpus): their
 *            bits, like the bits of the last long at or above nr_cpus,
 *            must be ignored
 *     bit 3  sparse: the data are 4-byte records (u16 queue, u16 bit)
 *            that toggle one bit, any bit of the mask_longs longs;
 *            otherwise the data are XORed over the mask bytes in order
 *     bit 4  start from all-ones masks instead of all-zero
 *     bit 5  the allocation fails
 *   bytes 1-2: nr_cpus raw: nr_cpus = raw % 2049 if raw has bit 15 set,
 *            else raw % 150 (0 .. 2048: multiples of BITS_PER_LONG and
 *            not, above 64, ...; small values are the cheaper, and the
 *            more common)
 *   bytes 3-4: nr_queues raw: nr_queues = raw % 257 if raw has bit 15
 *            set, else raw % 17
 *   the rest: mask data as above
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/slab.h>

#include "map.h"

int fuzz_fail_next_alloc;
size_t fuzz_last_alloc_size;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "fuzz_map: FAIL: %s: ", #cond);	\
			fprintf(stderr, __VA_ARGS__);			\
			fprintf(stderr, " (nr_cpus %u nr_queues %u mask_longs %u fail_alloc %d)\n", \
				nr_cpus, nr_queues, mask_longs, fail_alloc); \
			abort();					\
		}							\
	} while (0)

static unsigned int get16(const uint8_t *p)
{
	return (unsigned int)p[0] | (unsigned int)p[1] << 8;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int nr_cpus, nr_queues, mask_longs, flags, cpu, q, i;
	unsigned int *model_len;
	unsigned long *masks, *saved;
	size_t nlongs, nbytes, total, first, want_size;
	struct xps_steer_map *map;
	const u16 *queues;
	u16 *model;
	int fail_alloc;

	if (size < 5)
		return -1;	/* not an input: keep it out of the corpus */
	flags = data[0];
	if ((flags & 0xc1) == 0xc1) {
		nr_cpus = get16(data + 1) % 66;
		nr_queues = 65536 - get16(data + 3) % 512;
	} else {
		nr_cpus = get16(data + 1) % (data[2] & 0x80 ? 2049 : 150);
		nr_queues = get16(data + 3) % (data[4] & 0x80 ? 257 : 17);
	}
	mask_longs = (unsigned int)BITS_TO_LONGS(nr_cpus) + (flags >> 1 & 3);
	fail_alloc = flags >> 5 & 1;
	data += 5;
	size -= 5;

	/* Exactly the masks the caller owns: ASan flags any read beyond. */
	nlongs = (size_t)nr_queues * mask_longs;
	nbytes = nlongs * sizeof(long);
	masks = malloc(nbytes);
	saved = malloc(nbytes);
	CHECK(masks && saved, "out of memory for %zu bytes of masks", nbytes);
	memset(masks, flags & 16 ? 0xff : 0, nbytes);
	if (flags & 8) {
		size_t nbits = (size_t)mask_longs * BITS_PER_LONG;

		for (i = 0; nbits && nr_queues && (size_t)i + 4 <= size; i += 4) {
			size_t qq = get16(data + i) % nr_queues;
			size_t bit = get16(data + i + 2) % nbits;
			unsigned long *w = masks + qq * mask_longs + bit / BITS_PER_LONG;

			*w ^= 1UL << (bit % BITS_PER_LONG);
		}
	} else {
		for (i = 0; i < size && i < nbytes; i++)
			((uint8_t *)masks)[i] ^= data[i];
	}
	memcpy(saved, masks, nbytes);

	/* The reference model: CPU-major lists of ascending queues. */
	model_len = calloc(nr_cpus + 1, sizeof(*model_len));
	model = malloc(((size_t)nr_cpus * nr_queues + 1) * sizeof(*model));
	CHECK(model_len && model, "out of memory");
	total = 0;
	for (cpu = 0; cpu < nr_cpus; cpu++)
		for (q = 0; q < nr_queues; q++)
			if (test_bit(cpu, masks + (size_t)q * mask_longs)) {
				model[total++] = (u16)q;
				model_len[cpu]++;
			}

	fuzz_fail_next_alloc = fail_alloc;
	fuzz_last_alloc_size = 0;
	map = xps_steer_map_build(masks, mask_longs, nr_queues, nr_cpus);
	fuzz_fail_next_alloc = 0;

	CHECK(memcmp(masks, saved, nbytes) == 0, "the masks were modified");
	if (nr_queues > XPS_STEER_MAX_QUEUES) {
		CHECK(map == ERR_PTR(-EINVAL), "%u queues but map %p", nr_queues,
		      (void *)map);
	} else if (!total) {
		CHECK(map == NULL, "no CPU mapped but map %p", (void *)map);
	} else if (fail_alloc) {
		CHECK(map == ERR_PTR(-ENOMEM), "allocation failed but map %p",
		      (void *)map);
	} else {
		CHECK(map && !IS_ERR(map), "%zu queue entries but map %p", total,
		      (void *)map);
		CHECK(map->nr_cpus == nr_cpus, "map->nr_cpus %u", map->nr_cpus);
		/* struct_size() counts sizeof(*map), tail padding included. */
		want_size = sizeof(*map) + nr_cpus * sizeof(map->cpu[0]) +
			    total * sizeof(u16);
		CHECK(fuzz_last_alloc_size == want_size,
		      "allocated %zu bytes, layout needs exactly %zu",
		      fuzz_last_alloc_size, want_size);
		queues = xps_steer_map_queues(map);
		CHECK((const char *)queues == (const char *)&map->cpu[0] +
		      nr_cpus * sizeof(map->cpu[0]), "queues[] not right after cpu[]");
		first = 0;
		for (cpu = 0; cpu < nr_cpus; cpu++) {
			const struct xps_steer_cpu_queues *e = &map->cpu[cpu];

			CHECK(e->first == first, "cpu %u: first %" PRIu32 ", expected %zu (back to back)",
			      cpu, e->first, first);
			CHECK(e->len == model_len[cpu], "cpu %u: len %u, expected %u",
			      cpu, e->len, model_len[cpu]);
			CHECK(!e->len || e->queue == model[first],
			      "cpu %u: inline queue %u, expected %u", cpu, e->queue,
			      model[first]);
			for (i = 0; i < e->len; i++)
				CHECK(queues[e->first + i] == model[first + i],
				      "cpu %u: queue #%u is %u, expected %u", cpu, i,
				      queues[e->first + i], model[first + i]);
			first += e->len;
		}
		CHECK(first == total, "lists hold %zu entries, masks have %zu bits",
		      first, total);
	}
	if (!IS_ERR(map))
		xps_steer_map_free(map);	/* NULL is fine, like kvfree() */

	free(model);
	free(model_len);
	free(saved);
	free(masks);
	return 0;
}
