// SPDX-License-Identifier: GPL-2.0
/*
 * Read a device's state, queues and masks from the module's
 * files or the kernel's, and write masks back through the same backend.
 *
 * The module backend reads every CPU mask from the map file, one read, so
 * that a status shows one configuration even while it is being replaced.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "cpumask.h"
#include "device.h"
#include "irq.h"

extern char **environ;

bool module_loaded(void)
{
	return path_exists(XS_SYSFS_MOD "/parameters/dev");
}

const char *dev_state_name(enum dev_state state)
{
	switch (state) {
	case DEV_ATTACHED:
		return "attached";
	case DEV_ABSENT:
		return "absent";
	case DEV_REFUSED:
		return "refused";
	case DEV_FAILED:
		return "failed";
	default:
		return "not-listed";
	}
}

const char *dev_backend_name(enum dev_backend backend)
{
	switch (backend) {
	case BACKEND_MODULE:
		return "module";
	case BACKEND_KERNEL:
		return "kernel";
	default:
		return "none";
	}
}

const char *dev_mode_name(enum dev_mode mode)
{
	switch (mode) {
	case MODE_STEER:
		return "steer";
	case MODE_GUARD:
		return "guard";
	default:
		return NULL;
	}
}

size_t dev_entry_namelen(const char *entry)
{
	return strcspn(entry, ":");
}

bool dev_entry_same(const char *a, const char *b)
{
	size_t la = dev_entry_namelen(a);

	return la == dev_entry_namelen(b) && !strncmp(a, b, la);
}

bool dev_entry_guard(const char *entry)
{
	return !strcmp(entry + dev_entry_namelen(entry), DEV_GUARD_SUFFIX);
}

/* One status line: "<name> <state> key=value ... [driver=rest of line]". */
static int parse_status_line(char *line, struct device *dev)
{
	char *state, *field, *save = NULL;

	char *name = strtok_r(line, " ", &save);

	memset(dev, 0, sizeof(*dev));
	dev->numa_node = -1;
	if (!name)
		return -EINVAL;
	dev->name = xstrdup(name);
	state = strtok_r(NULL, " ", &save);
	if (!state)
		return -EINVAL;
	if (!strcmp(state, "attached"))
		dev->state = DEV_ATTACHED;
	else if (!strcmp(state, "absent"))
		dev->state = DEV_ABSENT;
	else if (!strcmp(state, "refused"))
		dev->state = DEV_REFUSED;
	else if (!strcmp(state, "failed"))
		dev->state = DEV_FAILED;
	else
		return -EINVAL;
	while ((field = strtok_r(NULL, " ", &save))) {
		char *eq = strchr(field, '=');

		if (!eq)
			continue;
		*eq++ = '\0';
		if (!strcmp(field, "driver")) {
			/* Always last; its value may hold spaces. */
			if (save && *save)
				eq[strlen(eq)] = ' ';
			/* Refused: why; attached: the denylisted driver guarded. */
			if (dev->state == DEV_ATTACHED)
				dev->guard_driver = xstrdup(eq);
			else
				dev->refused_driver = xstrdup(eq);
			break;
		}
		if (!strcmp(field, "reason"))
			dev->reason = xstrdup(eq);
		else if (!strcmp(field, "hook"))
			dev->hook = xstrdup(eq);
		else if (!strcmp(field, "name"))
			dev->ifname = xstrdup(eq);
		else if (!strcmp(field, "mode") && dev->state == DEV_ATTACHED)
			dev->mode = !strcmp(eq, "guard") ? MODE_GUARD : MODE_STEER;
		else if (!strcmp(field, "guard") && dev->state == DEV_ATTACHED)
			dev->guard = xstrdup(eq);
		/* Counts of attached devices only (refused ones may say why). */
		else if (!strcmp(field, "queues") && dev->state == DEV_ATTACHED)
			dev->num_queues = strtoul(eq, NULL, 10);
		else if (!strcmp(field, "active") && dev->state == DEV_ATTACHED)
			dev->active_queues = strtoul(eq, NULL, 10);
	}
	/* Modules before guard mode say no mode=: they only steer. */
	if (dev->state == DEV_ATTACHED && dev->mode == MODE_NONE)
		dev->mode = MODE_STEER;
	return 0;
}

int module_status(struct device **devs, size_t *n)
{
	char *text, *line, *save = NULL;
	int ret = read_text(XS_SYSFS_MOD "/status", &text);

	*devs = NULL;
	*n = 0;
	if (ret)
		return ret;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		*devs = xrealloc(*devs, (*n + 1) * sizeof(**devs));
		if (parse_status_line(line, &(*devs)[*n])) {
			device_free(&(*devs)[*n]);
			warn_msg("status: cannot parse '%s'", line);
			continue;
		}
		(*n)++;
	}
	free(text);
	return 0;
}

int dev_list_read(char ***names, size_t *n)
{
	char *text, *name, *save = NULL;
	int ret = read_line(XS_SYSFS_MOD "/parameters/dev", &text);

	*names = NULL;
	*n = 0;
	if (ret)
		return ret;
	for (name = strtok_r(text, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		*names = xrealloc(*names, (*n + 1) * sizeof(**names));
		(*names)[(*n)++] = xstrdup(name);
	}
	free(text);
	return 0;
}

int dev_list_lock(void)
{
	char *path = root_path("/run/xps-steer.lock");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	free(path);
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX) && errno == EINTR)
		;
	return fd;
}

void dev_list_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

static char *join_names(char *const *names, size_t n)
{
	size_t len = 1;
	char *list;

	for (size_t i = 0; i < n; i++)
		len += strlen(names[i]) + 1;
	list = xcalloc(1, len);
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(list, ",");
		strcat(list, names[i]);
	}
	return list;
}

int dev_list_write(char *const *names, size_t n)
{
	char *list = join_names(names, n), *text = xasprintf("%s\n", list);
	int ret = write_text(XS_SYSFS_MOD "/parameters/dev", text);

	free(text);
	free(list);
	return ret;
}

/* $XPS_STEER_MODPROBE replaces modprobe (tests). */
int module_load(char *const *names, size_t n)
{
	const char *modprobe = getenv("XPS_STEER_MODPROBE");
	char *list = join_names(names, n), *arg = xasprintf("dev=%s", list);
	char *const argv[] = { (char *)"modprobe", (char *)"xps_steer", arg,
			       NULL };
	pid_t pid;
	int status, ret;

	if (!modprobe || !*modprobe)
		modprobe = "modprobe";
	ret = posix_spawnp(&pid, modprobe, NULL, NULL, argv, environ);
	free(list);
	free(arg);
	if (ret)
		return -ret;
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

/* The PCI address in the device's sysfs path, if it is on PCI. */
static char *find_bus_id(const char *ifname)
{
	char *link = root_pathf(XS_SYSFS_NET "/%s/device", ifname);
	char *real = realpath(link, NULL), *comp, *save = NULL, *found = NULL;

	free(link);
	if (!real)
		return NULL;
	for (comp = strtok_r(real, "/", &save); comp;
	     comp = strtok_r(NULL, "/", &save)) {
		unsigned int d, b, s, f;
		char end;

		if (sscanf(comp, "%4x:%2x:%2x.%1x%c", &d, &b, &s, &f, &end) == 4 &&
		    strlen(comp) == 12) {
			free(found);
			found = xstrdup(comp);
		}
	}
	free(real);
	return found;
}

static int read_int(const char *path, int fallback)
{
	char *text;
	int v = fallback;

	if (!read_text(path, &text)) {
		char *end;
		long l = strtol(text, &end, 10);

		if (end != text)
			v = (int)l;
		free(text);
	}
	return v;
}

static void load_identity(struct device *dev)
{
	const char *ifn = dev->ifname;
	char *path;

	path = xasprintf(XS_SYSFS_NET "/%s/device/driver", ifn);
	dev->driver = link_basename(path);
	free(path);
	dev->bus_id = find_bus_id(ifn);
	path = xasprintf(XS_SYSFS_NET "/%s/address", ifn);
	if (read_line(path, &dev->mac))
		dev->mac = NULL;
	free(path);
	for (char *c = dev->mac; c && *c; c++)
		*c = tolower((unsigned char)*c);
	/* virtio's device has no node of its own: ask its PCI parent. */
	path = xasprintf(XS_SYSFS_NET "/%s/device/numa_node", ifn);
	dev->numa_node = read_int(path, -1);
	free(path);
	if (dev->numa_node < 0) {
		path = xasprintf(XS_SYSFS_NET "/%s/device/../numa_node", ifn);
		dev->numa_node = read_int(path, -1);
		free(path);
	}
}

/* The kernel shows a queues/tx-<n> directory for each active queue. */
static unsigned int count_kernel_queues(const char *ifname)
{
	unsigned int n = 0;

	for (;; n++) {
		char *path = xasprintf(XS_SYSFS_NET "/%s/queues/tx-%u", ifname,
				       n);
		bool there = path_exists(path);

		free(path);
		if (!there)
			return n;
	}
}

static void alloc_queues(struct device *dev)
{
	dev->queues = xcalloc(dev->num_queues, sizeof(*dev->queues));
	for (unsigned int q = 0; q < dev->num_queues; q++) {
		struct queue_info *qi = &dev->queues[q];

		qi->index = q;
		qi->active = q < dev->active_queues;
		qi->cpus = hwloc_bitmap_alloc();
		qi->packets = -1;
		qi->irq = -1;
	}
}

static hwloc_bitmap_t read_hex_file(const char *path)
{
	hwloc_bitmap_t set;
	char *text;

	if (read_text(path, &text))
		return NULL;
	set = hwloc_bitmap_alloc();
	if (mask_parse_hex(text, set)) {
		hwloc_bitmap_free(set);
		set = NULL;
	}
	free(text);
	return set;
}

/*
 * A map the module cannot show in a page (EFBIG): each queue's
 * xps_cpus_list, or its xps_cpus when the list does not fit either. Not
 * one snapshot, as the map file is: a write meanwhile may show half.
 */
static int load_module_queues(struct device *dev)
{
	for (unsigned int q = 0; q < dev->num_queues; q++) {
		char *path = xasprintf(XS_SYSFS_DEVS "/%s/tx-%u/xps_cpus_list",
				       dev->ifname, q);
		int ret = read_cpulist_file(path, dev->queues[q].cpus);
		hwloc_bitmap_t set;

		free(path);
		if (!ret)
			continue;
		path = xasprintf(XS_SYSFS_DEVS "/%s/tx-%u/xps_cpus",
				 dev->ifname, q);
		set = read_hex_file(path);
		free(path);
		if (!set)
			return ret;
		hwloc_bitmap_copy(dev->queues[q].cpus, set);
		hwloc_bitmap_free(set);
	}
	return 0;
}

/* "tx-<n> <cpulist>" lines of the module's map file. */
static int load_module_map(struct device *dev)
{
	char *path = xasprintf(XS_SYSFS_DEVS "/%s/map", dev->ifname);
	char *text, *line, *save = NULL;
	int ret = read_text(path, &text);

	free(path);
	if (ret == -EFBIG)
		return load_module_queues(dev);
	if (ret)
		return ret;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int q;
		int used = 0;

		if (sscanf(line, "tx-%u%n", &q, &used) != 1 ||
		    q >= dev->num_queues) {
			ret = -EINVAL;
			break;
		}
		ret = cpulist_parse(line + used, dev->queues[q].cpus);
		if (ret)
			break;
	}
	free(text);
	return ret;
}

static void load_queue_files(struct device *dev)
{
	for (unsigned int q = 0; q < dev->num_queues; q++) {
		struct queue_info *qi = &dev->queues[q];
		char *path;

		if (dev->backend == BACKEND_MODULE) {
			/* Guard mode counts no packets: no such file. */
			path = xasprintf(XS_SYSFS_DEVS "/%s/tx-%u/packets",
					 dev->ifname, q);
			qi->packets = dev->mode == MODE_GUARD ? -1 :
				      read_int(path, -1);
			free(path);
			path = xasprintf(XS_SYSFS_DEVS "/%s/tx-%u/xps_rxqs",
					 dev->ifname, q);
		} else {
			path = xasprintf(XS_SYSFS_NET "/%s/queues/tx-%u/xps_rxqs",
					 dev->ifname, q);
		}
		if (read_line(path, &qi->rxqs))
			qi->rxqs = NULL;
		free(path);
		if (!qi->active)
			continue;
		path = xasprintf(XS_SYSFS_NET "/%s/queues/tx-%u/xps_cpus",
				 dev->ifname, q);
		if (dev->backend == BACKEND_MODULE) {
			qi->kernel_cpus = read_hex_file(path);
		} else {
			hwloc_bitmap_t set = read_hex_file(path);

			if (set) {
				hwloc_bitmap_copy(qi->cpus, set);
				hwloc_bitmap_free(set);
			}
		}
		free(path);
	}
}

static void load_stats(struct device *dev)
{
	char *path = xasprintf(XS_SYSFS_DEVS "/%s/stats", dev->ifname);
	char *text, *line, *save = NULL;

	if (read_text(path, &text)) {
		free(path);
		return;
	}
	free(path);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		unsigned long long v;

		if (sscanf(line, "%63s %llu", name, &v) != 2)
			continue;
		dev->stats = xrealloc(dev->stats,
				      (dev->nstats + 1) * sizeof(*dev->stats));
		dev->stats[dev->nstats].name = xstrdup(name);
		dev->stats[dev->nstats++].value = v;
	}
	free(text);
}

static void load_irqs(struct device *dev)
{
	int *irqs = xcalloc(dev->active_queues, sizeof(*irqs));
	hwloc_bitmap_t *aff = xcalloc(dev->active_queues, sizeof(*aff));

	irq_find_queues(dev->ifname, dev->active_queues, irqs, aff);
	for (unsigned int q = 0; q < dev->active_queues; q++) {
		dev->queues[q].irq = irqs[q];
		dev->queues[q].irq_affinity = aff[q];
	}
	free(irqs);
	free(aff);
}

int device_load(const char *name, struct device *dev)
{
	struct device *all = NULL;
	size_t n = 0, i;
	char *path;
	int ret;

	memset(dev, 0, sizeof(*dev));
	dev->numa_node = -1;
	/* The status line for this name, or for the device it renamed to. */
	if (!module_status(&all, &n)) {
		for (i = 0; i < n; i++)
			if (!strcmp(all[i].name, name))
				break;
		if (i == n)
			for (i = 0; i < n; i++)
				if (all[i].ifname && !strcmp(all[i].ifname, name))
					break;
		if (i < n) {
			*dev = all[i];
			memset(&all[i], 0, sizeof(all[i]));
		}
		devices_free(all, n);
	}
	if (!dev->name)
		dev->name = xstrdup(name);
	if (dev->state == DEV_ATTACHED) {
		if (!dev->ifname)
			dev->ifname = xstrdup(dev->name);
		dev->backend = BACKEND_MODULE;
	} else {
		path = xasprintf(XS_SYSFS_NET "/%s", name);
		if (path_exists(path)) {
			dev->ifname = xstrdup(name);
			dev->backend = BACKEND_KERNEL;
		}
		free(path);
	}
	if (!dev->ifname) {
		dev->num_queues = 0;
		dev->active_queues = 0;
		return dev->state == DEV_NOT_LISTED ? -ENODEV : 0;
	}

	load_identity(dev);
	if (dev->backend == BACKEND_KERNEL) {
		dev->num_queues = count_kernel_queues(dev->ifname);
		dev->active_queues = dev->num_queues;
	}
	if (dev->active_queues > dev->num_queues)
		dev->active_queues = dev->num_queues;
	alloc_queues(dev);
	if (dev->backend == BACKEND_MODULE) {
		ret = load_module_map(dev);
		if (ret) {
			err_msg("%s: cannot read its map (%s)", dev->ifname,
				strerror(-ret));
			return ret;
		}
		load_stats(dev);
	}
	load_queue_files(dev);
	load_irqs(dev);
	return 0;
}

void device_free(struct device *dev)
{
	free(dev->name);
	free(dev->ifname);
	free(dev->reason);
	free(dev->refused_driver);
	free(dev->hook);
	free(dev->guard);
	free(dev->guard_driver);
	free(dev->driver);
	free(dev->bus_id);
	free(dev->mac);
	for (unsigned int q = 0; dev->queues && q < dev->num_queues; q++) {
		struct queue_info *qi = &dev->queues[q];

		hwloc_bitmap_free(qi->cpus);
		hwloc_bitmap_free(qi->kernel_cpus);
		hwloc_bitmap_free(qi->irq_affinity);
		free(qi->rxqs);
	}
	free(dev->queues);
	for (size_t i = 0; i < dev->nstats; i++)
		free(dev->stats[i].name);
	free(dev->stats);
	memset(dev, 0, sizeof(*dev));
}

void devices_free(struct device *devs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		device_free(&devs[i]);
	free(devs);
}

char *map_text(const struct device *dev, hwloc_bitmap_t *masks)
{
	char *text = xstrdup("");

	/* Inactive queues are left out: they keep their masks. */
	for (unsigned int q = 0; q < dev->active_queues; q++) {
		char *list = cpulist_format(masks[q]), *next;

		next = xasprintf("%stx-%u%s%s\n", text, q, *list ? " " : "",
				 list);
		free(list);
		free(text);
		text = next;
	}
	return text;
}

/* "tx-0,tx-2,tx-3" for a set of queue numbers. */
static char *queue_list(hwloc_const_bitmap_t queues)
{
	char *text = xstrdup(""), *next;
	int q;

	hwloc_bitmap_foreach_begin(q, queues) {
		next = xasprintf("%s%stx-%d", text, *text ? "," : "", q);
		free(text);
		text = next;
	} hwloc_bitmap_foreach_end();
	return text;
}

/*
 * The longest text the module's files take: sysfs hands a write at most
 * a page, and the module refuses one that may have been cut (E2BIG).
 */
static size_t max_write(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return (page > 4096 ? (size_t)page : 4096) - 2;
}

/*
 * One queue of an attached device: its xps_cpus_list, or, for a list
 * longer than a write may be, its xps_cpus (hex, at most 9 bytes per 32
 * possible CPUs). *file: which one.
 */
static int write_module_queue(const struct device *dev, unsigned int q,
			      hwloc_const_bitmap_t mask, const char **file)
{
	char *list = cpulist_format(mask), *text, *path;
	int ret;

	if (strlen(list) + 1 <= max_write()) {
		*file = "xps_cpus_list";
		text = xasprintf("%s\n", list);
	} else {
		char *hex = mask_format_hex(mask, possible_cpus());

		*file = "xps_cpus";
		text = xasprintf("%s\n", hex);
		free(hex);
	}
	path = xasprintf(XS_SYSFS_DEVS "/%s/tx-%u/%s", dev->ifname, q, *file);
	ret = write_text(path, text);
	free(path);
	free(text);
	free(list);
	return ret;
}

static int write_kernel_queue(const struct device *dev, unsigned int q,
			      hwloc_const_bitmap_t mask)
{
	unsigned int nbits = possible_cpus();
	char *hex, *path, *text;
	int ret;

	/* The hex text has room for possible CPUs only: refuse, not drop. */
	if (!nbits || hwloc_bitmap_last(mask) >= (int)nbits)
		return -ERANGE;
	hex = mask_format_hex(mask, nbits);
	path = xasprintf(XS_SYSFS_NET "/%s/queues/tx-%u/xps_cpus", dev->ifname,
			 q);
	text = xasprintf("%s\n", hex);
	ret = write_text(path, text);

	free(text);
	free(path);
	free(hex);
	return ret;
}

static const char *queue_hint(int err)
{
	return err == -ENXIO ? ": queue not in use (ethtool -L)" :
	       err == -ERANGE ? ": a CPU beyond the possible CPUs" : "";
}

/* One queue through the backend's own file for it; *file: which. */
static int write_one_queue(const struct device *dev, unsigned int q,
			   hwloc_const_bitmap_t mask, const char **file)
{
	if (dev->backend == BACKEND_MODULE)
		return write_module_queue(dev, q, mask, file);
	*file = "xps_cpus";
	return write_kernel_queue(dev, q, mask);
}

/*
 * Queue by queue, where the mask changes. When a queue refuses, the
 * queues written before it get their old masks back, so that a failed
 * write leaves the device as it was, not half old map, half new; the
 * messages say which queue refused and whether that worked.
 */
static int write_queues(struct device *dev, hwloc_bitmap_t *masks,
			int *failed_queue)
{
	const char *file = "xps_cpus";
	hwloc_bitmap_t written = hwloc_bitmap_alloc();
	hwloc_bitmap_t stuck = hwloc_bitmap_alloc();
	unsigned int q;
	int ret = 0, k;
	char *list;

	for (q = 0; q < dev->active_queues; q++) {
		if (hwloc_bitmap_isequal(dev->queues[q].cpus, masks[q]))
			continue;
		ret = write_one_queue(dev, q, masks[q], &file);
		if (ret)
			break;
		hwloc_bitmap_set(written, q);
	}
	if (ret) {
		*failed_queue = q;
		err_msg("%s: tx-%u: %s write rejected (%s)%s", dev->ifname,
			q, file, strerror(-ret), queue_hint(ret));
		hwloc_bitmap_foreach_begin(k, written) {
			int err = write_one_queue(dev, k, dev->queues[k].cpus,
						  &file);

			if (err) {
				err_msg("%s: tx-%d: cannot put its old mask back (%s)",
					dev->ifname, k, strerror(-err));
				hwloc_bitmap_set(stuck, k);
				hwloc_bitmap_clr(written, k);
			}
		} hwloc_bitmap_foreach_end();
		if (!hwloc_bitmap_iszero(written)) {
			list = queue_list(written);
			err_msg("%s: %s: written before tx-%u refused, now back as they were%s",
				dev->ifname, list, q, hwloc_bitmap_iszero(stuck) ?
				": the device's masks are unchanged" : "");
			free(list);
		}
		if (!hwloc_bitmap_iszero(stuck)) {
			list = queue_list(stuck);
			err_msg("%s: %s keep the new map's masks, the other queues the old map's: `xps-steer status %s` shows them",
				dev->ifname, list, dev->ifname);
			free(list);
		}
	}
	hwloc_bitmap_free(written);
	hwloc_bitmap_free(stuck);
	return ret;
}

int device_write_map(struct device *dev, hwloc_bitmap_t *masks,
		     int *failed_queue)
{
	static const char not_atomic[] =
		"not atomically (packets may see part of each map meanwhile)";
	char *text, *path;
	size_t len;
	int ret;

	*failed_queue = -1;
	switch (dev->backend) {
	case BACKEND_MODULE:
		text = map_text(dev, masks);
		len = strlen(text);
		if (len > max_write()) {
			warn_msg("%s: the map is %zu bytes, more than the %zu a write of the map file may have: written queue by queue, %s",
				 dev->ifname, len, max_write(), not_atomic);
			ret = -E2BIG;
		} else {
			path = xasprintf(XS_SYSFS_DEVS "/%s/map", dev->ifname);
			ret = write_text(path, text);
			free(path);
			if (ret == -E2BIG)
				warn_msg("%s: the map file refused the map (%s): written queue by queue, %s",
					 dev->ifname, strerror(-ret), not_atomic);
		}
		free(text);
		if (ret == -E2BIG)
			ret = write_queues(dev, masks, failed_queue);
		break;
	case BACKEND_KERNEL:
		/* One queue at a time: the kernel has no whole-device file. */
		ret = write_queues(dev, masks, failed_queue);
		break;
	default:
		return -ENODEV;
	}
	if (!ret)
		for (unsigned int q = 0; q < dev->active_queues; q++)
			hwloc_bitmap_copy(dev->queues[q].cpus, masks[q]);
	return ret;
}

int device_check_possible(const struct device *dev, hwloc_bitmap_t *masks)
{
	unsigned int ncpus = possible_cpus();

	for (unsigned int q = 0; ncpus && q < dev->active_queues; q++) {
		int last = hwloc_bitmap_last(masks[q]);

		if (last >= (int)ncpus) {
			err_msg("%s: tx-%u: CPU %d is not a possible CPU (0-%u)",
				dev->ifname, q, last, ncpus - 1);
			return -ERANGE;
		}
	}
	return 0;
}

/*
 * The kernel drops offline CPUs from xps_cpus when it is written (the
 * module keeps them): for as long as a CPU is offline its files differ
 * from the wanted masks, so every apply would write them again and auto
 * would print a map that is not the one in place. So the masks become
 * what the kernel can hold, with a note.
 */
void device_kernel_can_hold(const struct device *dev, hwloc_bitmap_t *masks,
			    char **notes)
{
	hwloc_bitmap_t online = hwloc_bitmap_alloc();
	hwloc_bitmap_t dropped = hwloc_bitmap_alloc();
	char *list, *next;
	bool many;

	if (read_cpulist_file("/sys/devices/system/cpu/online", online) ||
	    hwloc_bitmap_iszero(online))
		goto out;	/* unknown: write the masks as they are */
	/* Not offline but impossible: kept for device_check_possible's ERANGE. */
	hwloc_bitmap_set_range(online, (int)possible_cpus(), -1);
	for (unsigned int q = 0; q < dev->active_queues; q++) {
		hwloc_bitmap_or(dropped, dropped, masks[q]);
		hwloc_bitmap_and(masks[q], masks[q], online);
	}
	hwloc_bitmap_andnot(dropped, dropped, online);
	if (hwloc_bitmap_iszero(dropped))
		goto out;
	list = cpulist_format(dropped);
	many = hwloc_bitmap_weight(dropped) > 1;
	next = xasprintf("%s%sCPU%s %s offline: the kernel's xps_cpus cannot hold %s, so %s left out of the map written and compared (write the map again once %s online)",
			 *notes ? *notes : "", *notes && **notes &&
			 (*notes)[strlen(*notes) - 1] != '\n' ? "\n" : "",
			 many ? "s" : "", list, many ? "them" : "it",
			 many ? "they are" : "it is", many ? "they are" : "it is");
	free(list);
	free(*notes);
	*notes = next;
out:
	hwloc_bitmap_free(online);
	hwloc_bitmap_free(dropped);
}

int device_write_queue(struct device *dev, unsigned int queue,
		       hwloc_const_bitmap_t mask)
{
	const char *file;
	int ret;

	if (queue >= dev->num_queues)
		return -ENOENT;
	switch (dev->backend) {
	case BACKEND_MODULE:
		ret = write_module_queue(dev, queue, mask, &file);
		break;
	case BACKEND_KERNEL:
		ret = write_kernel_queue(dev, queue, mask);
		break;
	default:
		return -ENODEV;
	}
	if (!ret)
		hwloc_bitmap_copy(dev->queues[queue].cpus, mask);
	return ret;
}
