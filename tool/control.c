// SPDX-License-Identifier: GPL-2.0
/*
 * `xps-steer set` (one queue's CPUs) and `attach`/`detach`
 * (the module's runtime device list).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "common.h"
#include "cpumask.h"
#include "device.h"

/* "3" or "tx-3"; -1 if neither. */
static long parse_queue(const char *arg)
{
	char *end;
	long q;

	if (!strncmp(arg, "tx-", 3))
		arg += 3;
	if (*arg < '0' || *arg > '9')
		return -1;
	q = strtol(arg, &end, 10);
	return *end || q > 65535 ? -1 : q;
}

/*
 * Which backend a write may use: the module for attached devices, the
 * kernel's files for devices the module refused (or, with --kernel, any).
 */
static int writable(const struct device *dev, bool force_kernel)
{
	if (dev->backend == BACKEND_NONE) {
		err_msg("%s: %s", dev->name, dev->state == DEV_ABSENT ?
			"absent: listed, but no such device yet" : "no such device");
		return EXIT_NODEV;
	}
	if (dev->state == DEV_FAILED && !force_kernel) {
		err_msg("%s: xps_steer could not attach it (%s): see the kernel log; --kernel to write the kernel's own xps_cpus",
			dev->name, dev->reason ? dev->reason : "?");
		return EXIT_FAIL;
	}
	if (dev->state == DEV_NOT_LISTED && !force_kernel) {
		err_msg("%s: not in xps_steer's device list: `xps-steer attach %s` first, or --kernel to write the kernel's own xps_cpus",
			dev->name, dev->name);
		return EXIT_NODEV;
	}
	if (dev->backend == BACKEND_KERNEL)
		warn_msg("%s: writing the kernel's own xps_cpus (%s); driver %s may rewrite it on CPU hotplug or ethtool -L",
			 dev->ifname, dev->state == DEV_REFUSED && !force_kernel ?
			 "xps_steer refused the device" : "--kernel",
			 dev->driver ? dev->driver : "?");
	return EXIT_OK;
}

int cmd_set(const struct cmd_args *a)
{
	const char *name = a->argv[0], *queue = a->argv[1], *cpus = a->argv[2];
	hwloc_bitmap_t mask;
	struct device dev;
	const char *list;
	long q;
	int ret, err;

	if (check_ifname(name))
		return EXIT_USAGE;
	q = parse_queue(queue);
	if (q < 0) {
		err_msg("%s: '%s' is not a queue (N or tx-N)", name, queue);
		return EXIT_USAGE;
	}
	list = strcmp(cpus, "none") ? cpus : "";
	mask = hwloc_bitmap_alloc();
	if (cpulist_parse(list, mask)) {
		err_msg("%s: '%s' is not a CPU list (like 0-3,8; none for no CPU)",
			name, cpus);
		hwloc_bitmap_free(mask);
		return EXIT_USAGE;
	}
	err = device_load(name, &dev);
	ret = err == -ENODEV ? EXIT_NODEV : err ? EXIT_FAIL : writable(&dev, a->kernel);
	if (err == -ENODEV)
		err_msg("%s: no such device", name);
	if (ret == EXIT_OK && (unsigned long)q >= dev.num_queues) {
		err_msg("%s: no queue tx-%ld: the device has %u", dev.ifname, q,
			dev.num_queues);
		ret = EXIT_USAGE;
	}
	if (ret == EXIT_OK) {
		err = device_write_queue(&dev, q, mask);
		if (err) {
			err_msg("%s: tx-%ld: write rejected (%s)%s", dev.ifname, q,
				strerror(-err), err == -ENXIO ?
				": queue not in use (ethtool -L)" : err == -ERANGE ?
				": a CPU beyond the possible CPUs" : "");
			ret = EXIT_FAIL;
		}
	}
	hwloc_bitmap_free(mask);
	device_free(&dev);
	return ret;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static ssize_t find_name(char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (dev_entry_same(names[i], name))
			return i;
	return -1;
}

/* A listed device asked for in another mode takes the new entry. */
static void add_name(char ***names, size_t *n, const char *name)
{
	ssize_t at = find_name(*names, *n, name);

	if (at >= 0) {
		free((*names)[at]);
		(*names)[at] = xstrdup(name);
		return;
	}
	*names = xrealloc(*names, (*n + 1) * sizeof(**names));
	(*names)[(*n)++] = xstrdup(name);
}

/* attach: DEV or DEV:guard, each DEV a valid name. */
static int check_entries(int n, char *const *entries)
{
	int ret = EXIT_OK;

	for (int i = 0; i < n; i++) {
		char *name = xasprintf("%.*s", (int)dev_entry_namelen(entries[i]),
				       entries[i]);

		/* Anything but the one suffix is a bad name, said as such. */
		if (check_ifname(dev_entry_guard(entries[i]) ? name : entries[i]))
			ret = EXIT_USAGE;
		free(name);
	}
	return ret;
}

/*
 * The operands, each once: the module refuses a list that names one
 * twice, and a second detach of a name would find it gone.
 */
static void operands(const struct cmd_args *a, char ***names, size_t *n)
{
	*names = NULL;
	*n = 0;
	for (int i = 0; i < a->argc; i++)
		add_name(names, n, a->argv[i]);
}

/* After a list change: say what became of each name. */
static int report(char **names, size_t n)
{
	int ret = EXIT_OK;

	for (size_t i = 0; i < n; i++) {
		char *name = xasprintf("%.*s", (int)dev_entry_namelen(names[i]),
				       names[i]);
		struct device dev;

		device_load(name, &dev);
		free(name);
		switch (dev.state) {
		case DEV_ATTACHED:
			printf("%s: attached%s (%u tx queues)\n", dev.name,
			       dev.mode == MODE_GUARD ? " in guard mode" : "",
			       dev.num_queues);
			break;
		case DEV_ABSENT:
			printf("%s: absent: attached when it registers\n", dev.name);
			break;
		case DEV_REFUSED:
			printf("%s: refused (%s): manage its masks through the kernel's xps_cpus (set --kernel, or backend = kernel)\n",
			       dev.name, dev.reason ? dev.reason : "?");
			ret = EXIT_FAIL;
			break;
		case DEV_FAILED:
			printf("%s: not attached (%s): tried again when it re-registers or the list is written\n",
			       dev.name, dev.reason ? dev.reason : "?");
			ret = EXIT_FAIL;
			break;
		default:
			err_msg("%s: not in the device list after the write", dev.name);
			ret = EXIT_FAIL;
		}
		device_free(&dev);
	}
	return ret;
}

static int write_list(char **names, size_t n)
{
	int err = dev_list_write(names, n);

	if (err)
		err_msg("cannot write the device list (%s)%s", strerror(-err),
			err == -EINVAL ? ": the kernel log (dmesg) says which entry" : "");
	return err ? (err == -EINVAL ? EXIT_USAGE : EXIT_FAIL) : EXIT_OK;
}

int cmd_attach(const struct cmd_args *a)
{
	char **names = NULL, **wanted;
	size_t n = 0, nw;
	int ret, err, lock;

	/* All of them before dev= changes: a bad name fails the whole list. */
	if (check_entries(a->argc, a->argv))
		return EXIT_USAGE;
	operands(a, &wanted, &nw);
	lock = dev_list_lock();
	if (!module_loaded()) {
		err = module_load(wanted, nw);
		dev_list_unlock(lock);
		if (err)
			err_msg("modprobe xps_steer failed (%s)", strerror(-err));
		ret = err ? EXIT_FAIL : report(wanted, nw);
		free_names(wanted, nw);
		return ret;
	}
	err = dev_list_read(&names, &n);
	if (err) {
		dev_list_unlock(lock);
		err_msg("cannot read the device list (%s)", strerror(-err));
		free_names(wanted, nw);
		return EXIT_FAIL;
	}
	for (size_t i = 0; i < nw; i++)
		add_name(&names, &n, wanted[i]);
	ret = write_list(names, n);
	dev_list_unlock(lock);
	free_names(names, n);
	if (!ret)
		ret = report(wanted, nw);
	free_names(wanted, nw);
	return ret;
}

int cmd_detach(const struct cmd_args *a)
{
	char **names = NULL, **gone;
	size_t n = 0, ngone;
	int ret = EXIT_OK, err, lock;

	if (check_ifnames(a->argc, a->argv))
		return EXIT_USAGE;
	operands(a, &gone, &ngone);
	lock = dev_list_lock();
	err = dev_list_read(&names, &n);
	if (err) {
		dev_list_unlock(lock);
		err_msg("xps_steer is not loaded: nothing to detach");
		free_names(gone, ngone);
		return EXIT_NODEV;
	}
	for (size_t i = 0; i < ngone; i++) {
		ssize_t at = find_name(names, n, gone[i]);

		/* A renamed device is listed under the name it attached as. */
		if (at < 0) {
			struct device dev;

			if (!device_load(gone[i], &dev) &&
			    dev.state != DEV_NOT_LISTED)
				at = find_name(names, n, dev.name);
			device_free(&dev);
		}
		if (at < 0) {
			err_msg("%s: not in xps_steer's device list", gone[i]);
			ret = EXIT_NODEV;
			continue;
		}
		free(names[at]);
		memmove(&names[at], &names[at + 1], (n - at - 1) * sizeof(*names));
		n--;
	}
	if (ret == EXIT_OK)
		ret = write_list(names, n);
	dev_list_unlock(lock);
	free_names(names, n);
	if (ret == EXIT_OK)
		for (size_t i = 0; i < ngone; i++)
			printf("%s: detached\n", gone[i]);
	free_names(gone, ngone);
	return ret;
}
