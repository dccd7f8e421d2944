// SPDX-License-Identifier: GPL-2.0
/*
 * The configuration put to work: `apply` (each matched device's
 * map, written only where it differs from the live one), `save` (the live
 * maps as a configuration file), `load` (the systemd unit at boot: attach
 * what the configuration names, then apply) and `hotplug` (the udev rule,
 * when a network device appears).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "common.h"
#include "config.h"
#include "cpumask.h"
#include "device.h"
#include "policy.h"
#include "topology.h"

#define SAVE_FILE	XS_CONF_DIR "/90-saved.conf"

struct apply_opts {
	bool dry_run;
	bool if_configured;	/* apply DEV: no matching section is no error */
	const char *config;	/* --config FILE; NULL: the system's files */
	const char *topology;	/* --topology FILE; NULL: this machine */
	const char *output;	/* save --output FILE */
};

/* What one run shares between its devices. */
struct applier {
	const struct apply_opts *opts;
	struct config conf;
	hwloc_topology_t topo;	/* loaded for the first policy */
	bool topo_failed;
};

/* One device's failure does not stop the others; a failure outranks 3. */
static int worse(int a, int b)
{
	if (a == EXIT_FAIL || b == EXIT_FAIL)
		return EXIT_FAIL;
	return a ? a : b;
}

/*
 * The options in allowed ("nct", "o") into o; returns the index of the
 * first operand, or -1 after a bad option.
 */
static int parse_opts(int argc, char **argv, const char *allowed,
		      struct apply_opts *o)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "config", required_argument, NULL, 'c' },
		{ "topology", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "if-configured", no_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == '?' || !strchr(allowed, c))
			return -1;
		if (c == 'n')
			o->dry_run = true;
		else if (c == 'i')
			o->if_configured = true;
		else if (c == 'c')
			o->config = optarg;
		else if (c == 't')
			o->topology = optarg;
		else
			o->output = optarg;
	}
	return optind;
}

static bool list_has(char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static void list_add(char ***names, size_t *n, const char *name)
{
	if (list_has(*names, *n, name))
		return;
	*names = xrealloc(*names, (*n + 1) * sizeof(**names));
	(*names)[(*n)++] = xstrdup(name);
}

static void list_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static char *list_join(char *const *names, size_t n, const char *sep)
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
static void present_devices(char ***names, size_t *n)
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
static void line_buffered(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

static int applier_init(struct applier *ap, const struct apply_opts *o)
{
	line_buffered();
	memset(ap, 0, sizeof(*ap));
	ap->opts = o;
	/* config_load has said what is wrong, with file and line. */
	return config_load(&ap->conf, o->config) ? EXIT_USAGE : EXIT_OK;
}

static void applier_free(struct applier *ap)
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

/* The kernel's own xps_cpus become the masks the new ones are compared to. */
static void use_kernel_files(struct device *dev)
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
	if (dev->backend == BACKEND_KERNEL)
		err_msg("%s: tx-%d: xps_cpus write rejected (%s)", dev->ifname,
			failed, strerror(-err));
	else
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
static int apply_to(struct applier *ap, struct device *dev,
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
static int apply_present(struct applier *ap)
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

int cmd_apply(int argc, char **argv)
{
	struct apply_opts o;
	struct applier ap;
	bool matched = false;
	int first = parse_opts(argc, argv, "ncti", &o), ret;

	if (first < 0) {
		err_msg("usage: xps-steer apply [DEV...] [--dry-run] [--if-configured] [--config FILE] [--topology FILE]");
		return EXIT_USAGE;
	}
	ret = applier_init(&ap, &o);
	if (ret)
		return ret;
	if (first == argc)
		ret = apply_present(&ap);
	for (int i = first; i < argc; i++)
		ret = worse(ret, apply_name(&ap, argv[i], !o.if_configured,
					    &matched));
	applier_free(&ap);
	return ret;
}

/* ---- save ---- */

/* A section name that reads back as this interface, literally. */
static bool plain_name(const char *name)
{
	return !strpbrk(name, "[]*?\\;#=") && *name;
}

/* One device's live masks as an explicit-map section. */
static int save_section(FILE *out, const char *name)
{
	struct device dev;
	int err = device_load(name, &dev), ret = EXIT_OK;

	if (err == -ENODEV || (!err && dev.backend == BACKEND_NONE)) {
		err_msg("%s: %s", name, err ? "no such device" :
			"absent: listed, no such device yet");
		ret = EXIT_NODEV;
	} else if (err) {
		ret = EXIT_FAIL;
	} else if (!plain_name(dev.ifname)) {
		err_msg("%s: its name cannot be a section name ([]*?\\;#= in it): not saved",
			dev.ifname);
		ret = EXIT_FAIL;
	} else {
		fprintf(out, "\n[%s]\n", dev.ifname);
		/* Where the masks came from is where they go back. */
		if (dev.backend == BACKEND_KERNEL)
			fprintf(out, "backend = kernel\n");
		for (unsigned int q = 0; q < dev.active_queues; q++) {
			char *list = cpulist_format(dev.queues[q].cpus);

			fprintf(out, "tx-%u = %s\n", q, *list ? list : "none");
			free(list);
		}
		if (dev.num_queues > dev.active_queues)
			fprintf(out, "# tx-%u..tx-%u: not in use now (ethtool -L), not saved\n",
				dev.active_queues, dev.num_queues - 1);
		printf("%s: saved (%u queues%s)\n", dev.ifname,
		       dev.active_queues, dev.backend == BACKEND_KERNEL ?
		       ", the kernel's xps_cpus" : "");
	}
	device_free(&dev);
	return ret;
}

static int mkdir_parents(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return mkdir(path, 0755) && errno != EEXIST ? -errno : 0;
}

/*
 * Replace path with text: a temporary file in the same directory, synced,
 * then renamed over it, so that a crash leaves the old file or the new
 * one, never part of one. The name "<file>.XXXXXX" does not end in .conf:
 * a leftover is never read as configuration.
 */
static int write_atomic(const char *path, const char *text)
{
	char *tmp = xasprintf("%s.XXXXXX", path), *dir = xstrdup(path);
	size_t len = strlen(text), done = 0;
	int fd = mkstemp(tmp), dfd, ret = 0;

	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	while (done < len && !ret) {
		ssize_t n = write(fd, text + done, len - done);

		if (n > 0)
			done += n;
		else if (!n || errno != EINTR)
			ret = n ? -errno : -EIO;
	}
	if (!ret && (fchmod(fd, 0644) || fsync(fd)))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		goto out;
	}
	/* The rename itself is durable once the directory is synced. */
	dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
out:
	free(dir);
	free(tmp);
	return ret;
}

static void save_header(FILE *out, int argc, char **argv)
{
	char when[64];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", &tm);
	fprintf(out, "# The live transmit queue maps, saved on %s by\n#   %s",
		when, prog_name);
	for (int i = 0; i < argc; i++)
		fprintf(out, " %s", argv[i]);
	fprintf(out, "\n# `xps-steer apply` (and `load`, at boot) writes them back. A later\n"
		"# section, or a file after this one in " XS_CONF_DIR ", overrides them.\n");
}

/* No DEV: the attached devices, and the refused ones (kernel backend). */
static int devices_to_save(char ***names, size_t *n)
{
	struct device *st;
	size_t nst;

	*names = NULL;
	*n = 0;
	if (module_status(&st, &nst)) {
		err_msg("xps_steer is not loaded: nothing to save (name devices to save their kernel xps_cpus)");
		return EXIT_NODEV;
	}
	for (size_t i = 0; i < nst; i++)
		if (st[i].state == DEV_ATTACHED || st[i].state == DEV_REFUSED)
			list_add(names, n, st[i].ifname ? st[i].ifname :
				 st[i].name);
	devices_free(st, nst);
	if (!*n) {
		err_msg("no device is attached to xps_steer or refused by it: nothing to save");
		return EXIT_NODEV;
	}
	return EXIT_OK;
}

int cmd_save(int argc, char **argv)
{
	struct apply_opts o;
	char **names = NULL, *text = NULL, *path;
	const char *shown;
	size_t n = 0, len;
	FILE *out;
	int first = parse_opts(argc, argv, "o", &o), ret = EXIT_OK, err;

	if (first < 0) {
		err_msg("usage: xps-steer save [DEV...] [--output FILE]");
		return EXIT_USAGE;
	}
	line_buffered();
	if (first == argc)
		ret = devices_to_save(&names, &n);
	for (int i = first; i < argc; i++)
		list_add(&names, &n, argv[i]);
	if (ret)
		return ret;
	out = open_memstream(&text, &len);
	if (!out) {
		err_msg("out of memory");
		list_free(names, n);
		return EXIT_FAIL;
	}
	save_header(out, argc, argv);
	for (size_t i = 0; i < n; i++)
		ret = worse(ret, save_section(out, names[i]));
	fclose(out);
	list_free(names, n);
	/* All or nothing: the file replaces the last save whole. */
	if (ret) {
		err_msg("nothing saved");
		free(text);
		return ret;
	}
	if (o.output) {
		path = xstrdup(o.output);
		shown = o.output;
	} else {
		char *dir = root_path(XS_CONF_DIR);

		err = mkdir_parents(dir);
		free(dir);
		if (err) {
			err_msg("%s: cannot create it (%s)", XS_CONF_DIR,
				strerror(-err));
			free(text);
			return EXIT_FAIL;
		}
		path = root_path(SAVE_FILE);
		shown = SAVE_FILE;
	}
	err = write_atomic(path, text);
	if (err) {
		err_msg("%s: cannot write it (%s)", shown, strerror(-err));
		ret = EXIT_FAIL;
	} else {
		printf("saved to %s\n", shown);
	}
	free(path);
	free(text);
	return ret;
}

/* ---- load ---- */

/*
 * The names the configuration wants in dev=: present devices a section
 * matches that are not listed yet, and the fixed names of sections for
 * devices not there yet (the module attaches them when they register).
 * Sections with backend = kernel stay out.
 */
static void wanted_names(struct applier *ap, char ***names, size_t *n)
{
	const struct conf_device *rule;
	char **present;
	size_t np;

	*names = NULL;
	*n = 0;
	present_devices(&present, &np);
	for (size_t i = 0; i < np; i++) {
		struct device dev;

		/* Listed ones (attached, refused) are the module's already. */
		if (!device_load(present[i], &dev) &&
		    dev.state == DEV_NOT_LISTED) {
			rule = config_match(&ap->conf, &dev);
			if (rule && rule->backend != PREF_KERNEL)
				list_add(names, n, dev.ifname);
		}
		device_free(&dev);
	}
	for (size_t i = 0; i < ap->conf.n; i++) {
		const char *fixed = conf_fixed_name(&ap->conf.devs[i]);
		/* Only the name is known: rules that need more do not match. */
		struct device pseudo = { .name = (char *)fixed };

		if (!fixed || list_has(present, np, fixed))
			continue;
		rule = config_match(&ap->conf, &pseudo);
		if (rule && rule->backend != PREF_KERNEL)
			list_add(names, n, fixed);
	}
	list_free(present, np);
}

/* Add names to dev= (the union with what is there), loading the module. */
static int attach_names_locked(char *const *names, size_t n)
{
	char **cur = NULL, *list;
	size_t ncur = 0, before;
	int err;

	if (!n)
		return EXIT_OK;
	if (!module_loaded()) {
		list = list_join(names, n, ",");
		err = module_load(names, n);
		if (err)
			err_msg("modprobe xps_steer dev=%s failed (%s)", list,
				strerror(-err));
		else
			printf("xps_steer: loaded with dev=%s\n", list);
		free(list);
		return err ? EXIT_FAIL : EXIT_OK;
	}
	err = dev_list_read(&cur, &ncur);
	if (err) {
		err_msg("cannot read xps_steer's device list (%s)", strerror(-err));
		return EXIT_FAIL;
	}
	before = ncur;
	for (size_t i = 0; i < n; i++)
		list_add(&cur, &ncur, names[i]);
	if (ncur == before) {
		list_free(cur, ncur);
		return EXIT_OK;
	}
	err = dev_list_write(cur, ncur);
	list = list_join(cur, ncur, ",");
	if (err)
		err_msg("cannot write xps_steer's device list %s (%s)%s", list,
			strerror(-err), err == -EINVAL ?
			": the kernel log (dmesg) says which entry" : "");
	else
		printf("xps_steer: dev=%s\n", list);
	free(list);
	list_free(cur, ncur);
	return err ? EXIT_FAIL : EXIT_OK;
}

/* attach_names_locked with the dev= list locked against other instances. */
static int attach_names(char *const *names, size_t n)
{
	int lock = dev_list_lock(), ret = attach_names_locked(names, n);

	dev_list_unlock(lock);
	return ret;
}

int cmd_load(int argc, char **argv)
{
	struct apply_opts o;
	struct applier ap;
	char **names;
	size_t n;
	int first = parse_opts(argc, argv, "ct", &o), ret;

	if (first != argc) {
		err_msg("usage: xps-steer load [--config FILE]");
		return EXIT_USAGE;
	}
	ret = applier_init(&ap, &o);
	if (ret)
		return ret;
	if (!ap.conf.n) {
		printf("no configuration (%s, %s/*.conf): nothing to do\n",
		       XS_CONF_FILE, XS_CONF_DIR);
		applier_free(&ap);
		return EXIT_OK;
	}
	wanted_names(&ap, &names, &n);
	/* A failed attach still leaves kernel-backend devices to apply. */
	ret = attach_names(names, n);
	list_free(names, n);
	ret = worse(ret, apply_present(&ap));
	applier_free(&ap);
	return ret;
}

/* ---- hotplug ---- */

/*
 * udev expands %k when it reads the rule, before 80-net-setup-link.rules
 * renames the device (eth0 -> ens3); the program gets the event's
 * properties when it starts, after the rename. IFINDEX names the device
 * whatever it is called now.
 */
static char *resolve_ifname(const char *arg)
{
	const char *subsys = getenv("SUBSYSTEM"), *index = getenv("IFINDEX");
	char **names, *found = NULL;
	size_t n;

	if (!subsys || strcmp(subsys, "net") || !index || !*index)
		return xstrdup(arg);
	present_devices(&names, &n);
	for (size_t i = 0; i < n && !found; i++) {
		char *path = xasprintf(XS_SYSFS_NET "/%s/ifindex", names[i]);
		char *text;

		if (!read_line(path, &text)) {
			if (!strcmp(text, index))
				found = xstrdup(names[i]);
			free(text);
		}
		free(path);
	}
	list_free(names, n);
	return found ? found : xstrdup(arg);
}

static int hotplug_device(struct applier *ap, char *ifname)
{
	const struct conf_device *rule;
	struct device dev;
	int ret = EXIT_OK, err = device_load(ifname, &dev);

	if (err) {
		if (err == -ENODEV)
			err_msg("%s: no such device", ifname);
		device_free(&dev);
		return err == -ENODEV ? EXIT_NODEV : EXIT_FAIL;
	}
	rule = config_match(&ap->conf, &dev);
	if (!rule)
		goto out;	/* not ours: quiet, udev runs this for every device */
	if (dev.state == DEV_NOT_LISTED && rule->backend != PREF_KERNEL) {
		if (!module_loaded()) {
			printf("%s: xps_steer is not loaded; `xps-steer load` (xps-steer.service) attaches it\n",
			       ifname);
			goto out;
		}
		ret = attach_names(&ifname, 1);
		if (ret)
			goto out;
		device_free(&dev);
		if (device_load(ifname, &dev)) {
			ret = EXIT_FAIL;
			goto out;
		}
	}
	if (dev.state == DEV_ATTACHED && rule->backend != PREF_KERNEL) {
		/* Its attach uevent runs `xps-steer apply` (70-xps-steer.rules). */
		printf("%s: attached to xps_steer; its attach event applies [%s]\n",
		       ifname, rule->section);
	} else {
		ret = apply_to(ap, &dev, rule);
	}
out:
	device_free(&dev);
	return ret;
}

int cmd_hotplug(int argc, char **argv)
{
	struct apply_opts o;
	struct applier ap;
	char *ifname;
	int first = parse_opts(argc, argv, "ct", &o), ret;

	if (first < 0 || argc - first != 1) {
		err_msg("usage: xps-steer hotplug IFNAME [--config FILE]");
		return EXIT_USAGE;
	}
	ret = applier_init(&ap, &o);
	if (ret)
		return ret;
	ifname = resolve_ifname(argv[first]);
	ret = hotplug_device(&ap, ifname);
	free(ifname);
	applier_free(&ap);
	return ret;
}
