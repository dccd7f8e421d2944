// SPDX-License-Identifier: GPL-2.0
/*
 * `xps-steer apply`: each matched device's map, written only where it
 * differs from the live one; and what save, load and hotplug share with
 * it (apply.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "apply.h"
#include "commands.h"
#include "common.h"
#include "config.h"
#include "cpumask.h"
#include "device.h"
#include "policy.h"
#include "topology.h"

/* One device's failure does not stop the others; a failure outranks 3. */
int worse(int a, int b)
{
	if (a == EXIT_FAIL || b == EXIT_FAIL)
		return EXIT_FAIL;
	return a ? a : b;
}

void apply_opts_init(struct apply_opts *o, const struct cmd_args *a)
{
	memset(o, 0, sizeof(*o));
	o->dry_run = a->dry_run;
	o->if_configured = a->if_configured;
	o->config = a->config;
	o->topology = a->topology;
	o->output = a->output;
}

bool list_has(char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (dev_entry_same(names[i], name))
			return true;
	return false;
}

void list_add(char ***names, size_t *n, const char *name)
{
	if (list_has(*names, *n, name))
		return;
	*names = xrealloc(*names, (*n + 1) * sizeof(**names));
	(*names)[(*n)++] = xstrdup(name);
}

void list_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

char *list_join(char *const *names, size_t n, const char *sep)
{
	char *text = xstrdup(""), *next;

	for (size_t i = 0; i < n; i++) {
		next = xasprintf("%s%s%s", text, i ? sep : "", names[i]);
		free(text);
		text = next;
	}
	return text;
}

/* The interfaces in /sys/class/net, in name order. */
void present_devices(char ***names, size_t *n)
{
	char *dir = root_path(XS_SYSFS_NET);
	struct dirent **ents;
	int k = scandir(dir, &ents, NULL, alphasort);

	*names = NULL;
	*n = 0;
	for (int i = 0; i < k; i++) {
		char *path = xasprintf("%s/%s", dir, ents[i]->d_name);
		struct stat st;

		/* Not bonding_masters: a file, not a device. */
		if (ents[i]->d_name[0] != '.' && !stat(path, &st) &&
		    S_ISDIR(st.st_mode))
			list_add(names, n, ents[i]->d_name);
		free(path);
		free(ents[i]);
	}
	if (k > 0)
		free(ents);
	free(dir);
}

/*
 * Under systemd and udev, stdout and stderr go to one log: keep their
 * lines in order.
 */
void line_buffered(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

int applier_init(struct applier *ap, const struct apply_opts *o)
{
	line_buffered();
	memset(ap, 0, sizeof(*ap));
	ap->opts = o;
	/* config_load has said what is wrong, with file and line. */
	return config_load(&ap->conf, o->config) ? EXIT_USAGE : EXIT_OK;
}

void applier_free(struct applier *ap)
{
	if (ap->topo)
		hwloc_topology_destroy(ap->topo);
	config_free(&ap->conf);
}

static hwloc_bitmap_t *alloc_masks(unsigned int n)
{
	hwloc_bitmap_t *masks = xcalloc(n, sizeof(*masks));

	for (unsigned int q = 0; q < n; q++)
		masks[q] = hwloc_bitmap_alloc();
	return masks;
}

static void free_masks(hwloc_bitmap_t *masks, unsigned int n)
{
	for (unsigned int q = 0; q < n; q++)
		hwloc_bitmap_free(masks[q]);
	free(masks);
}

void use_kernel_files(struct device *dev)
{
	dev->backend = BACKEND_KERNEL;
	for (unsigned int q = 0; q < dev->active_queues; q++) {
		struct queue_info *qi = &dev->queues[q];

		if (qi->kernel_cpus)
			hwloc_bitmap_copy(qi->cpus, qi->kernel_cpus);
		else
			hwloc_bitmap_zero(qi->cpus);
	}
}

/*
 * Where the masks go: the module's map for attached devices, the kernel's
 * xps_cpus for devices the module refused or when the rule asks for them.
 * EXIT_OK, or the exit code after saying why not.
 */
static int pick_backend(struct device *dev, const struct conf_device *rule)
{
	switch (dev->state) {
	case DEV_ATTACHED:
		if (rule->backend == PREF_KERNEL)
			use_kernel_files(dev);
		return EXIT_OK;
	case DEV_REFUSED:
		if (dev->backend != BACKEND_KERNEL)
			break;
		if (rule->backend == PREF_MODULE) {
			err_msg("%s: xps_steer refused it (%s), and [%s] (%s) says backend = module",
				dev->ifname, dev->reason ? dev->reason : "?",
				rule->section, rule->file);
			return EXIT_FAIL;
		}
		return EXIT_OK;
	case DEV_ABSENT:
		err_msg("%s: absent: listed, no such device yet (its map is applied when it registers)",
			dev->name);
		return EXIT_NODEV;
	case DEV_FAILED:
		if (dev->backend != BACKEND_KERNEL)
			break;
		if (rule->backend == PREF_KERNEL)
			return EXIT_OK;
		err_msg("%s: xps_steer could not attach it (%s): see the kernel log; backend = kernel in [%s] for the kernel's own xps_cpus",
			dev->ifname, dev->reason ? dev->reason : "?", rule->section);
		return EXIT_FAIL;
	case DEV_NOT_LISTED:
		if (dev->backend != BACKEND_KERNEL)
			break;
		if (rule->backend == PREF_KERNEL)
			return EXIT_OK;
		err_msg("%s: not attached to xps_steer: `xps-steer attach %s` (or load) first, or backend = kernel in [%s] for the kernel's own xps_cpus",
			dev->ifname, dev->ifname, rule->section);
		return EXIT_NODEV;
	}
	err_msg("%s: no such device", dev->name);
	return EXIT_NODEV;
}

/* tx-<n> lines; queues not named get an empty mask, as in the map file. */
static void explicit_masks(const struct device *dev,
			   const struct conf_device *rule, hwloc_bitmap_t *masks)
{
	for (size_t i = 0; i < rule->nmap; i++) {
		const struct conf_queue *cq = &rule->map[i];

		if (cq->index >= dev->active_queues) {
			warn_msg("%s: tx-%u of [%s] (%s) skipped: the device has %u active tx queues (%u in all)",
				 dev->ifname, cq->index, rule->section,
				 rule->file, dev->active_queues,
				 dev->num_queues);
			continue;
		}
		hwloc_bitmap_copy(masks[cq->index], cq->cpus);
	}
}

static int policy_masks(struct applier *ap, const struct device *dev,
			const struct conf_device *rule, hwloc_bitmap_t *masks,
			char **notes)
{
	if (!ap->topo && !ap->topo_failed) {
		ap->topo = topology_load(ap->opts->topology);
		ap->topo_failed = !ap->topo;
	}
	/* irq reads the IRQs' affinities: it can do without. */
	if (!ap->topo && rule->policy != POLICY_IRQ) {
		err_msg("%s: policy %s needs the machine's topology", dev->ifname,
			policy_name(rule->policy));
		return EXIT_FAIL;
	}
	return policy_device_map(rule->policy, ap->topo, dev, masks, notes) ?
	       EXIT_FAIL : EXIT_OK;
}

static bool same_masks(const struct device *dev, hwloc_bitmap_t *masks)
{
	for (unsigned int q = 0; q < dev->active_queues; q++)
		if (!hwloc_bitmap_isequal(dev->queues[q].cpus, masks[q]))
			return false;
	return true;
}

static void print_indented(const char *text)
{
	const char *line = text;

	while (line && *line) {
		size_t len = strcspn(line, "\n");

		printf("  %.*s\n", (int)len, line);
		line += len + (line[len] == '\n');
	}
}

/* The policy's compromises, on stderr as `auto` prints them. */
static void print_notes(const struct device *dev, const char *notes)
{
	for (const char *line = notes; line && *line;) {
		size_t len = strcspn(line, "\n");

		fprintf(stderr, "note: %s: %.*s\n", dev->ifname, (int)len, line);
		line += len + (line[len] == '\n');
	}
}

static void warn_kernel_backend(const struct device *dev)
{
	const char *why = dev->state == DEV_REFUSED ? "xps_steer refused it" :
		dev->state == DEV_ATTACHED ?
		"backend = kernel; xps_steer's masks still decide for it" :
		"backend = kernel";

	warn_msg("%s: writing the kernel's own xps_cpus (%s); driver %s may rewrite them on CPU hotplug or ethtool -L",
		 dev->ifname, why, dev->driver ? dev->driver : "?");
}

static int write_masks(struct device *dev, hwloc_bitmap_t *masks)
{
	int failed, err = device_write_map(dev, masks, &failed);

	if (!err)
		return EXIT_OK;
	/* A queue's refusal has been reported, with what became of the rest. */
	if (failed < 0)
		err_msg("%s: map write rejected (%s)%s", dev->ifname,
			strerror(-err), err == -ENXIO ?
			": a queue not in use (ethtool -L)" : err == -EINVAL ||
			err == -ERANGE ? ": the kernel log (dmesg) says which line" : "");
	return EXIT_FAIL;
}

/* Write the masks if they differ from the live ones (or show them). */
static int write_or_show(struct applier *ap, struct device *dev,
			 hwloc_bitmap_t *masks, const char *what)
{
	const char *to = dev->backend == BACKEND_KERNEL ?
		" to the kernel's xps_cpus" : "";
	char *text;
	int ret;

	if (same_masks(dev, masks)) {
		printf("%s: unchanged\n", dev->ifname);
		return EXIT_OK;
	}
	if (dev->backend == BACKEND_KERNEL)
		warn_kernel_backend(dev);
	if (ap->opts->dry_run) {
		text = map_text(dev, masks);
		printf("%s: would apply %s (%u queues)%s:\n", dev->ifname, what,
		       dev->active_queues, to);
		print_indented(text);
		free(text);
		return EXIT_OK;
	}
	ret = write_masks(dev, masks);
	if (!ret)
		printf("%s: applied %s (%u queues)%s\n", dev->ifname, what,
		       dev->active_queues, to);
	return ret;
}

/* Compute the rule's masks for dev and write them where they differ. */
int apply_to(struct applier *ap, struct device *dev,
	     const struct conf_device *rule)
{
	hwloc_bitmap_t *masks;
	char *notes = NULL, *what;
	int ret = pick_backend(dev, rule);

	if (ret)
		return ret;
	if (!dev->active_queues) {
		printf("%s: no active tx queues: nothing to apply\n", dev->ifname);
		return EXIT_OK;
	}
	masks = alloc_masks(dev->num_queues);
	if (rule->has_policy) {
		ret = policy_masks(ap, dev, rule, masks, &notes);
		what = xasprintf("policy %s", policy_name(rule->policy));
	} else {
		explicit_masks(dev, rule, masks);
		what = xasprintf("map [%s]", rule->section);
	}
	if (!ret)
		ret = device_check_possible(dev, masks) ? EXIT_FAIL : EXIT_OK;
	if (!ret && dev->backend == BACKEND_KERNEL)
		device_kernel_can_hold(dev, masks, &notes);
	if (!ret)
		ret = write_or_show(ap, dev, masks, what);
	if (!ret)
		print_notes(dev, notes);
	free(notes);
	free(what);
	free_masks(masks, dev->num_queues);
	return ret;
}

/*
 * Apply to one name. named: the user asked for it, so a name nothing
 * matches is an error (3); *matched says whether a rule matched.
 */
static int apply_name(struct applier *ap, const char *name, bool named,
		      bool *matched)
{
	const struct conf_device *rule = NULL;
	struct device dev;
	int err = device_load(name, &dev), ret = EXIT_OK;

	if (!err)
		rule = config_match(&ap->conf, &dev);
	if (err == -ENODEV) {
		err_msg("%s: no such device", name);
		ret = EXIT_NODEV;
	} else if (err) {
		ret = EXIT_FAIL;	/* device_load said why */
	} else if (rule) {
		*matched = true;
		ret = apply_to(ap, &dev, rule);
	} else if (named) {
		err_msg("%s: no section of the configuration matches it", name);
		ret = EXIT_NODEV;
	}
	device_free(&dev);
	return ret;
}

/* Every present device a section matches. */
int apply_present(struct applier *ap)
{
	char **names;
	size_t n;
	bool matched = false;
	int ret = EXIT_OK;

	present_devices(&names, &n);
	for (size_t i = 0; i < n; i++)
		ret = worse(ret, apply_name(ap, names[i], false, &matched));
	if (!matched)
		printf("no present device matches the configuration: nothing to apply\n");
	list_free(names, n);
	return ret;
}

int cmd_apply(const struct cmd_args *a)
{
	struct apply_opts o;
	struct applier ap;
	bool matched = false;
	int ret;

	if (check_ifnames(a->argc, a->argv))
		return EXIT_USAGE;
	apply_opts_init(&o, a);
	ret = applier_init(&ap, &o);
	if (ret)
		return ret;
	if (!a->argc)
		ret = apply_present(&ap);
	for (int i = 0; i < a->argc; i++)
		ret = worse(ret, apply_name(&ap, a->argv[i], !o.if_configured,
					    &matched));
	applier_free(&ap);
	return ret;
}
