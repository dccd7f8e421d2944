// SPDX-License-Identifier: GPL-2.0
/*
 * A device's transmit queue interrupts, found by name in
 * /proc/interrupts, and where they are delivered (/proc/irq/<n>/).
 *
 * Drivers name their per-queue vectors; the names this knows, for queue
 * <q> of interface <if> ("eth0"):
 *
 *   <virtioN>-output.<q>        virtio_net, one vector per queue; virtioN
 *                               is the virtio device (the basename of
 *                               /sys/class/net/<if>/device)
 *   <if>-TxRx-<q>               igb, ixgbe, bnxt_en, hns3 (paired vectors)
 *   <drv>-<if>-TxRx-<q>         i40e, ice ("i40e-eth0-TxRx-3")
 *   <if>-tx-<q>                 igb, ixgbe with separate tx vectors
 *   <if>-txrx-<q>               the same, lower case (and any other case)
 *   mlx5_comp<q>@pci:<bus>      mlx5: completion vector q of the PCI
 *                               function <bus> (the device's basename)
 *
 * Names are given when a driver requests its vectors, so after a rename
 * (eth0 -> ens1f0) they keep the old name, and another device may take
 * it: where the device lists its MSI vectors (the PCI function's
 * msi_irqs/, for virtio its parent's), only those count.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"
#include "cpumask.h"
#include "irq.h"

/* What the names of one device's vectors are made of. */
struct irq_names {
	const char *ifname;
	char *virtio;		/* "virtio0", or NULL */
	char *bus;		/* the device's basename ("0000:3b:00.0") */
	char *msi_dir;		/* ".../msi_irqs" if it exists; NULL */
};

/* A queue number that runs to the end of s (or to stop); -1 if not. */
static long queue_number(const char *s, char stop, const char **rest)
{
	char *end;
	long q;

	if (!isdigit((unsigned char)*s))
		return -1;
	q = strtol(s, &end, 10);
	if (*end && *end != stop)
		return -1;
	if (rest)
		*rest = end;
	return q > 65535 ? -1 : q;
}

/* "<if>-TxRx-<q>", "<if>-txrx-<q>", "<if>-tx-<q>", after a "<drv>-". */
static long match_ifname(const char *name, const char *ifname)
{
	static const char *const kinds[] = { "-txrx-", "-tx-" };
	size_t len = strlen(ifname);

	for (const char *at = strstr(name, ifname); at;
	     at = strstr(at + 1, ifname)) {
		if (at != name && at[-1] != '-')
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
			size_t klen = strlen(kinds[i]);

			if (!strncasecmp(at + len, kinds[i], klen))
				return queue_number(at + len + klen, '\0',
						    NULL);
		}
	}
	return -1;
}

/* The queue an interrupt name stands for, or -1. */
static long match_name(const struct irq_names *n, const char *name)
{
	const char *rest;
	size_t len;
	long q;

	if (n->virtio) {
		len = strlen(n->virtio);
		if (!strncmp(name, n->virtio, len) &&
		    !strncmp(name + len, "-output.", 8))
			return queue_number(name + len + 8, '\0', NULL);
	}
	if (n->bus && !strncmp(name, "mlx5_comp", 9)) {
		q = queue_number(name + 9, '@', &rest);
		if (q >= 0 && !strncmp(rest, "@pci:", 5) &&
		    !strcmp(rest + 5, n->bus))
			return q;
		return -1;
	}
	return match_ifname(name, n->ifname);
}

static bool is_devices_irq(const struct irq_names *n, long irq)
{
	char *path;
	bool yes;

	if (!n->msi_dir)
		return true;
	path = xasprintf("%s/%ld", n->msi_dir, irq);
	yes = path_exists(path);
	free(path);
	return yes;
}

static void names_init(struct irq_names *n, const char *ifname)
{
	char *path;

	memset(n, 0, sizeof(*n));
	n->ifname = ifname;
	path = xasprintf(XS_SYSFS_NET "/%s/device", ifname);
	n->bus = link_basename(path);
	free(path);
	if (n->bus && !strncmp(n->bus, "virtio", 6) &&
	    isdigit((unsigned char)n->bus[6]))
		n->virtio = xstrdup(n->bus);
	/* virtio's own device has no vectors: its PCI parent has them. */
	n->msi_dir = xasprintf(XS_SYSFS_NET "/%s/device%s/msi_irqs", ifname,
			       n->virtio ? "/.." : "");
	if (!path_exists(n->msi_dir)) {
		free(n->msi_dir);
		n->msi_dir = NULL;
	}
}

static void names_free(struct irq_names *n)
{
	free(n->virtio);
	free(n->bus);
	free(n->msi_dir);
}

/* Where the IRQ goes: the effective affinity, else the one asked for. */
static hwloc_bitmap_t irq_affinity(long irq)
{
	static const char *const files[] = {
		"effective_affinity_list", "smp_affinity_list",
	};
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *path = xasprintf("/proc/irq/%ld/%s", irq, files[i]);
		int ret = read_cpulist_file(path, set);

		free(path);
		/* Empty: not set up on this architecture, or not started. */
		if (!ret && !hwloc_bitmap_iszero(set))
			return set;
	}
	hwloc_bitmap_free(set);
	return NULL;
}

int irq_find_queues(const char *ifname, unsigned int nqueues, int *irqs,
		    hwloc_bitmap_t *affinity)
{
	struct irq_names names;
	char *text, *line, *save = NULL;
	int found = 0;

	for (unsigned int q = 0; q < nqueues; q++) {
		irqs[q] = -1;
		affinity[q] = NULL;
	}
	if (!nqueues || read_text("/proc/interrupts", &text))
		return 0;
	names_init(&names, ifname);
	/* "  26:   5   0   PCI-MSI 49154-edge   virtio0-output.0" */
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *end, *tok, *tsave = NULL;
		long irq;

		line += strspn(line, " ");
		irq = strtol(line, &end, 10);
		if (end == line || *end != ':')
			continue;	/* the CPU header, NMI:, LOC: ... */
		/* The name is the last field; shared lines list "a, b". */
		for (tok = strtok_r(end + 1, " \t,", &tsave); tok;
		     tok = strtok_r(NULL, " \t,", &tsave)) {
			long q = match_name(&names, tok);

			if (q < 0 || q >= nqueues || irqs[q] >= 0 ||
			    !is_devices_irq(&names, irq))
				continue;
			irqs[q] = irq;
			affinity[q] = irq_affinity(irq);
			found++;
		}
	}
	names_free(&names);
	free(text);
	return found;
}
