// SPDX-License-Identifier: GPL-2.0
/*
 * `xps-steer status` (every device, its state, backend and
 * queues) and `xps-steer map` (CPU -> queues), as text or JSON.
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
#include "table.h"

/* The JSON layout's version: bumped only for incompatible changes. */
#define STATUS_JSON_VERSION 1

/* The kernel's mask disagrees when it is set and not ours. */
static bool kernel_differs(const struct queue_info *qi)
{
	return qi->kernel_cpus && !hwloc_bitmap_iszero(qi->kernel_cpus) &&
	       !hwloc_bitmap_isequal(qi->kernel_cpus, qi->cpus);
}

static char *opt_list(hwloc_const_bitmap_t set)
{
	return set ? cpulist_format(set) : NULL;
}

static void print_device_text(const struct device *dev)
{
	struct table t;
	bool differs = false;

	printf("%s: %s", dev->name, dev_state_name(dev->state));
	if (dev->state == DEV_REFUSED || dev->state == DEV_FAILED)
		printf(" (%s%s%s)", dev->reason ? dev->reason : "?",
		       dev->refused_driver ? ", driver " : "",
		       dev->refused_driver ? dev->refused_driver : "");
	if (dev->ifname && strcmp(dev->ifname, dev->name))
		printf(", now named %s", dev->ifname);
	printf(", backend %s", dev_backend_name(dev->backend));
	if (dev->hook)
		printf(", hook %s", dev->hook);
	if (dev->mode != MODE_NONE)
		printf(", mode %s", dev_mode_name(dev->mode));
	if (dev->mode == MODE_GUARD && dev->guard)
		printf(" (%s%s%s)", dev->guard,
		       dev->guard_driver ? ", driver " : "",
		       dev->guard_driver ? dev->guard_driver : "");
	putchar('\n');
	if (dev->state == DEV_ABSENT)
		printf("  no such device yet: attached when it registers\n");
	if (!dev->ifname)
		return;
	printf("  driver %s, bus %s, numa node %d, mac %s\n",
	       dev->driver ? dev->driver : "-", dev->bus_id ? dev->bus_id : "-",
	       dev->numa_node, dev->mac ? dev->mac : "-");
	printf("  queues %u, %u active\n", dev->num_queues, dev->active_queues);
	if (dev->backend == BACKEND_KERNEL)
		printf("  warning: masks are the kernel's xps_cpus files; the driver may rewrite them (CPU hotplug, ethtool -L)\n");

	table_init(&t, 7);
	table_row(&t, (const char *const[]){
		"queue", "cpus", "rxqs", "irq", "irq-cpus", "kernel-xps",
		"packets" });
	for (unsigned int q = 0; q < dev->num_queues; q++) {
		const struct queue_info *qi = &dev->queues[q];
		char *cpus = cpulist_format(qi->cpus), *irqc = opt_list(qi->irq_affinity);
		char *kern = dev->backend == BACKEND_MODULE ? opt_list(qi->kernel_cpus) : NULL;
		char name[32], irq[16], pk[32], *kcol;

		snprintf(name, sizeof(name), "tx-%u%s", q, qi->active ? "" : "*");
		snprintf(irq, sizeof(irq), "%d", qi->irq);
		snprintf(pk, sizeof(pk), "%lld", qi->packets);
		/* Any length: a long list must not lose its "(differs)". */
		kcol = xasprintf("%s%s", kern ? (*kern ? kern : "none") : "-",
				 kernel_differs(qi) ? " (differs)" : "");
		differs |= kernel_differs(qi);
		table_row(&t, (const char *const[]){ name, *cpus ? cpus : "none",
			  qi->rxqs, qi->irq >= 0 ? irq : NULL, irqc,
			  dev->backend == BACKEND_MODULE ? kcol : NULL,
			  qi->packets >= 0 ? pk : NULL });
		free(cpus);
		free(irqc);
		free(kern);
		free(kcol);
	}
	table_print(&t, stdout, "  ");
	table_free(&t);
	if (dev->active_queues < dev->num_queues)
		printf("  * not in use (ethtool -L): keeps its mask, no packet is sent on it\n");
	if (differs && dev->mode == MODE_GUARD)
		printf("  kernel-xps: the kernel's own xps_cpus differs; the guard writes the map again within guard_interval_ms\n");
	else if (differs)
		printf("  kernel-xps: the kernel's own xps_cpus differs; it applies only to packets xps_steer leaves to stock selection\n");
	if (dev->nstats) {
		printf("  counters:");
		for (size_t i = 0; i < dev->nstats; i++)
			printf(" %s=%llu", dev->stats[i].name, dev->stats[i].value);
		putchar('\n');
	}
}

static struct json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static struct json_object *device_json(const struct device *dev)
{
	struct json_object *o = json_object_new_object(), *qs, *st;

	json_object_object_add(o, "name", jstr(dev->name));
	json_object_object_add(o, "interface", jstr(dev->ifname));
	json_object_object_add(o, "state", jstr(dev_state_name(dev->state)));
	json_object_object_add(o, "reason", jstr(dev->reason));
	json_object_object_add(o, "refused_driver", jstr(dev->refused_driver));
	json_object_object_add(o, "backend", jstr(dev_backend_name(dev->backend)));
	json_object_object_add(o, "hook", jstr(dev->hook));
	json_object_object_add(o, "mode", jstr(dev_mode_name(dev->mode)));
	json_object_object_add(o, "guard", jstr(dev->guard));
	json_object_object_add(o, "guard_driver", jstr(dev->guard_driver));
	json_object_object_add(o, "driver", jstr(dev->driver));
	json_object_object_add(o, "bus_id", jstr(dev->bus_id));
	json_object_object_add(o, "mac", jstr(dev->mac));
	json_object_object_add(o, "numa_node", json_object_new_int(dev->numa_node));
	json_object_object_add(o, "queues_total", json_object_new_int(dev->num_queues));
	json_object_object_add(o, "queues_active", json_object_new_int(dev->active_queues));
	qs = json_object_new_array();
	for (unsigned int q = 0; q < dev->num_queues; q++) {
		const struct queue_info *qi = &dev->queues[q];
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "queue", json_object_new_int(q));
		json_object_object_add(j, "active", json_object_new_boolean(qi->active));
		json_object_object_add(j, "cpus", json_cpulist(qi->cpus));
		json_object_object_add(j, "rxqs", jstr(qi->rxqs));
		json_object_object_add(j, "irq", qi->irq >= 0 ?
				       json_object_new_int(qi->irq) : NULL);
		json_object_object_add(j, "irq_affinity",
				       qi->irq_affinity ? json_cpulist(qi->irq_affinity) : NULL);
		json_object_object_add(j, "kernel_xps_cpus",
				       dev->backend == BACKEND_MODULE && qi->kernel_cpus ?
				       json_cpulist(qi->kernel_cpus) : NULL);
		json_object_object_add(j, "kernel_differs",
				       json_object_new_boolean(kernel_differs(qi)));
		json_object_object_add(j, "packets", qi->packets >= 0 ?
				       json_object_new_int64(qi->packets) : NULL);
		json_object_array_add(qs, j);
	}
	json_object_object_add(o, "queues", qs);
	st = NULL;
	if (dev->nstats) {
		st = json_object_new_object();
		for (size_t i = 0; i < dev->nstats; i++)
			json_object_object_add(st, dev->stats[i].name,
					       json_object_new_uint64(dev->stats[i].value));
	}
	json_object_object_add(o, "counters", st);
	return o;
}

/* Names to show: dev= order first, then arguments not in it. */
static void collect_names(int argc, char **argv, char ***names, size_t *n)
{
	struct device *st = NULL;
	size_t nst = 0;

	*names = NULL;
	*n = 0;
	if (argc > 0) {
		for (int i = 0; i < argc; i++) {
			*names = xrealloc(*names, (*n + 1) * sizeof(**names));
			(*names)[(*n)++] = xstrdup(argv[i]);
		}
		return;
	}
	module_status(&st, &nst);
	for (size_t i = 0; i < nst; i++) {
		*names = xrealloc(*names, (*n + 1) * sizeof(**names));
		(*names)[(*n)++] = xstrdup(st[i].name);
	}
	devices_free(st, nst);
}

int cmd_status(const struct cmd_args *a)
{
	struct json_object *root = NULL, *arr = NULL;
	char **names;
	size_t n;
	int ret = EXIT_OK;
	bool json = a->json;

	if (check_ifnames(a->argc, a->argv))
		return EXIT_USAGE;
	collect_names(a->argc, a->argv, &names, &n);
	if (json) {
		root = json_object_new_object();
		json_object_object_add(root, "version",
				       json_object_new_int(STATUS_JSON_VERSION));
		json_object_object_add(root, "module_loaded",
				       json_object_new_boolean(module_loaded()));
		arr = json_object_new_array();
	} else if (!module_loaded()) {
		printf("xps_steer: not loaded\n");
	} else if (!n) {
		printf("xps_steer: loaded, no devices listed (xps-steer attach DEV)\n");
	}
	for (size_t i = 0; i < n; i++) {
		struct device dev;
		int err = device_load(names[i], &dev);

		if (err == -ENODEV) {
			err_msg("%s: no such device, and not in xps_steer's device list",
				names[i]);
			ret = EXIT_NODEV;
		} else if (err) {
			ret = EXIT_FAIL;
		} else if (json) {
			json_object_array_add(arr, device_json(&dev));
		} else {
			if (i)
				putchar('\n');
			print_device_text(&dev);
		}
		device_free(&dev);
		free(names[i]);
	}
	free(names);
	if (json) {
		json_object_object_add(root, "devices", arr);
		json_emit(root);
	}
	return ret;
}

int cmd_map(const struct cmd_args *a)
{
	const char *name = a->argv[0];
	struct device dev;
	struct table t;
	struct json_object *root, *arr;
	unsigned int ncpus;
	int err;

	if (check_ifname(name))
		return EXIT_USAGE;
	err = device_load(name, &dev);
	if (err || dev.backend == BACKEND_NONE) {
		err_msg("%s: %s", name, err && err != -ENODEV ?
			strerror(-err) : "no such device");
		device_free(&dev);
		return err && err != -ENODEV ? EXIT_FAIL : EXIT_NODEV;
	}
	ncpus = possible_cpus();
	root = json_object_new_object();
	json_object_object_add(root, "device", json_object_new_string(dev.ifname));
	json_object_object_add(root, "backend",
			       json_object_new_string(dev_backend_name(dev.backend)));
	arr = json_object_new_array();
	table_init(&t, 2);
	table_row(&t, (const char *const[]){ "cpu", "queues" });
	for (unsigned int cpu = 0; cpu < ncpus; cpu++) {
		struct json_object *j = json_object_new_object(), *qs;
		char num[16], *list = xstrdup("");

		qs = json_object_new_array();
		for (unsigned int q = 0; q < dev.num_queues; q++) {
			char *next;

			if (!dev.queues[q].active ||
			    !hwloc_bitmap_isset(dev.queues[q].cpus, cpu))
				continue;
			json_object_array_add(qs, json_object_new_int(q));
			next = xasprintf("%s%stx-%u", list, *list ? "," : "", q);
			free(list);
			list = next;
		}
		snprintf(num, sizeof(num), "%u", cpu);
		table_row(&t, (const char *const[]){ num,
			  *list ? list : "none (stock selection)" });
		json_object_object_add(j, "cpu", json_object_new_int(cpu));
		json_object_object_add(j, "queues", qs);
		json_object_array_add(arr, j);
		free(list);
	}
	json_object_object_add(root, "cpus", arr);
	if (a->json) {
		json_emit(root);
	} else {
		json_object_put(root);
		printf("%s (backend %s): CPU -> transmit queues\n", dev.ifname,
		       dev_backend_name(dev.backend));
		table_print(&t, stdout, "  ");
	}
	table_free(&t);
	device_free(&dev);
	return EXIT_OK;
}
