// SPDX-License-Identifier: GPL-2.0
/*
 * `xps-steer auto DEV --policy P`: compute a map for the device's
 * queues in use from the topology (or its IRQs), print it, write it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "common.h"
#include "cpumask.h"
#include "device.h"
#include "jsonout.h"
#include "policy.h"
#include "topology.h"

struct auto_opts {
	const char *dev;
	const char *topology;	/* --topology FILE; NULL: this machine */
	enum policy policy;
	bool dry_run, json;
};

/* The command line's options, the policy parsed. */
static int parse_args(const struct cmd_args *a, struct auto_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->dev = a->argv[0];
	o->topology = a->topology;
	o->dry_run = a->dry_run;
	o->json = a->json;
	if (check_ifname(o->dev))
		return EXIT_USAGE;
	if (policy_parse(a->policy, &o->policy)) {
		err_msg("policy '%s' is not one of one-to-one, cache, numa, irq",
			a->policy);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/*
 * A device the map can be written to: attached (module), or refused by
 * the module (the kernel's xps_cpus). A dry run only needs a device.
 */
static int check_device(const struct device *dev, bool dry_run)
{
	if (dev->backend == BACKEND_NONE) {
		err_msg("%s: %s", dev->name, dev->state == DEV_ABSENT ?
			"absent: listed, but no such device yet" :
			"no such device");
		return EXIT_NODEV;
	}
	if (!dry_run && dev->state == DEV_FAILED) {
		err_msg("%s: xps_steer could not attach it (%s): see the kernel log (or --dry-run to see the map)",
			dev->name, dev->reason ? dev->reason : "?");
		return EXIT_FAIL;
	}
	if (!dry_run && dev->state == DEV_NOT_LISTED) {
		err_msg("%s: not in xps_steer's device list: `xps-steer attach %s` first (or --dry-run to see the map)",
			dev->name, dev->name);
		return EXIT_NODEV;
	}
	return EXIT_OK;
}

int policy_device_map(enum policy policy, hwloc_topology_t topo,
		      const struct device *dev, hwloc_bitmap_t *masks,
		      char **notes)
{
	hwloc_bitmap_t *irq, exclude;
	struct policy_input in;
	int err;

	exclude = hwloc_bitmap_alloc();
	policy_excluded_cpus(exclude);
	/* device_load found the IRQs (irq_find_queues). */
	irq = xcalloc(dev->active_queues, sizeof(*irq));
	for (unsigned int q = 0; q < dev->active_queues; q++)
		irq[q] = dev->queues[q].irq_affinity;
	in = (struct policy_input){
		.topo = topo,
		.ifname = dev->ifname,
		.nqueues = dev->active_queues,
		.exclude = exclude,
		.irq_affinity = irq,
	};
	err = policy_compute(policy, &in, masks, notes);
	if (err == -ENOENT && policy == POLICY_IRQ)
		err_msg("%s: policy irq: no transmit queue IRQs found for %s",
			dev->ifname, dev->ifname);
	else if (err)
		err_msg("%s: policy %s failed (%s)", dev->ifname,
			policy_name(policy), strerror(-err));
	free(irq);
	hwloc_bitmap_free(exclude);
	return err;
}

static int compute(const struct auto_opts *o, const struct device *dev,
		   hwloc_bitmap_t *masks, char **notes)
{
	hwloc_topology_t topo = NULL;
	int err;

	/* irq needs no topology: its CPUs are the interrupts' affinities. */
	if (o->policy != POLICY_IRQ) {
		topo = topology_load(o->topology);
		if (!topo)
			return EXIT_FAIL;
	}
	err = policy_device_map(o->policy, topo, dev, masks, notes);
	if (topo)
		hwloc_topology_destroy(topo);
	return err ? EXIT_FAIL : EXIT_OK;
}

static void print_json(const struct auto_opts *o, const struct device *dev,
		       hwloc_bitmap_t *masks, const char *notes)
{
	struct json_object *doc = json_object_new_object();
	struct json_object *queues = json_object_new_array();
	struct json_object *lines = json_object_new_array();

	json_object_object_add(doc, "device",
			       json_object_new_string(dev->ifname));
	json_object_object_add(doc, "policy",
			       json_object_new_string(policy_name(o->policy)));
	for (unsigned int q = 0; q < dev->active_queues; q++) {
		struct json_object *entry = json_object_new_object();

		json_object_object_add(entry, "queue", json_object_new_int(q));
		json_object_object_add(entry, "cpus", json_cpulist(masks[q]));
		json_object_array_add(queues, entry);
	}
	json_object_object_add(doc, "queues", queues);
	for (const char *line = notes; line && *line;) {
		size_t len = strcspn(line, "\n");

		json_object_array_add(lines,
				      json_object_new_string_len(line, len));
		line += len + (line[len] == '\n');
	}
	json_object_object_add(doc, "notes", lines);
	json_emit(doc);
}

static void print_text(const struct device *dev, hwloc_bitmap_t *masks,
		       const char *notes)
{
	char *table = map_text(dev, masks);

	/* The map file's own format: "tx-N <cpulist>", "tx-N" when empty. */
	fputs(table, stdout);
	fflush(stdout);
	free(table);
	for (const char *line = notes; line && *line;) {
		size_t len = strcspn(line, "\n");

		fprintf(stderr, "note: %.*s\n", (int)len, line);
		line += len + (line[len] == '\n');
	}
}

static int write_map(struct device *dev, hwloc_bitmap_t *masks)
{
	int failed, err;

	if (device_check_possible(dev, masks))
		return EXIT_FAIL;
	if (dev->backend == BACKEND_KERNEL)
		warn_msg("%s: writing the kernel's own xps_cpus (xps_steer refused the device); driver %s may rewrite it on CPU hotplug or ethtool -L",
			 dev->ifname, dev->driver ? dev->driver : "?");
	err = device_write_map(dev, masks, &failed);
	if (!err)
		return EXIT_OK;
	/* A queue's refusal has been reported, with what became of the rest. */
	if (failed < 0)
		err_msg("%s: map write rejected (%s)", dev->ifname,
			strerror(-err));
	return EXIT_FAIL;
}

int cmd_auto(const struct cmd_args *a)
{
	hwloc_bitmap_t *masks = NULL;
	struct auto_opts o;
	struct device dev;
	char *notes = NULL;
	int ret, err;

	ret = parse_args(a, &o);
	if (ret)
		return ret;
	err = device_load(o.dev, &dev);
	if (err == -ENODEV) {
		err_msg("%s: no such device", o.dev);
		device_free(&dev);
		return EXIT_NODEV;
	}
	ret = err ? EXIT_FAIL : check_device(&dev, o.dry_run);
	if (ret)
		goto out;
	if (!dev.active_queues) {
		err_msg("%s: no tx queue in use: nothing to map", dev.ifname);
		ret = EXIT_FAIL;
		goto out;
	}
	/* One per queue: device_write_map skips the inactive ones. */
	masks = xcalloc(dev.num_queues, sizeof(*masks));
	for (unsigned int q = 0; q < dev.num_queues; q++)
		masks[q] = hwloc_bitmap_alloc();
	ret = compute(&o, &dev, masks, &notes);
	if (ret)
		goto out;
	if (dev.backend == BACKEND_KERNEL)
		device_kernel_can_hold(&dev, masks, &notes);
	if (o.json)
		print_json(&o, &dev, masks, notes);
	else
		print_text(&dev, masks, notes);
	if (!o.dry_run)
		ret = write_map(&dev, masks);
out:
	for (unsigned int q = 0; masks && q < dev.num_queues; q++)
		hwloc_bitmap_free(masks[q]);
	free(masks);
	free(notes);
	device_free(&dev);
	return ret;
}
