// SPDX-License-Identifier: GPL-2.0
/*
 * `xps-steer save`: the live maps as a configuration file, written
 * atomically.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apply.h"
#include "commands.h"
#include "common.h"
#include "config.h"
#include "cpumask.h"
#include "device.h"

#define SAVE_FILE	XS_CONF_DIR "/90-saved.conf"

/* A section name that reads back as this interface, literally. */
static bool plain_name(const char *name)
{
	return !strpbrk(name, "[]*?\\;#=") && *name;
}

/*
 * Every tx-<n> line fits in a configuration line: a longer one would make
 * the saved file, and so every later apply and load, fail.
 */
static bool lines_fit(const struct device *dev)
{
	bool fit = true;

	for (unsigned int q = 0; q < dev->active_queues && fit; q++) {
		char *list = cpulist_format(dev->queues[q].cpus);
		char *line = xasprintf("tx-%u = %s", q, *list ? list : "none");

		if (strlen(line) > config_max_line()) {
			err_msg("%s: tx-%u: its line would be %zu characters, more than a configuration line may have (%zu): not saved",
				dev->ifname, q, strlen(line), config_max_line());
			fit = false;
		}
		free(line);
		free(list);
	}
	return fit;
}

/*
 * One device's live masks as an explicit-map section: those of the
 * backend its rule puts it on, so that the section, which overrides the
 * rule, writes them back there.
 */
static int save_section(const struct applier *ap, FILE *out,
			const char *name)
{
	const struct conf_device *rule;
	struct device dev;
	int err = device_load(name, &dev), ret = EXIT_OK;

	rule = err ? NULL : config_match(&ap->conf, &dev);
	if (rule && rule->backend == PREF_KERNEL && dev.state == DEV_ATTACHED)
		use_kernel_files(&dev);

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
	} else if (!lines_fit(&dev)) {
		ret = EXIT_FAIL;
	} else {
		fprintf(out, "\n[%s]\n", dev.ifname);
		/* Where the masks came from is where they go back. */
		if (dev.backend == BACKEND_KERNEL)
			fprintf(out, "backend = kernel\n");
		else if (rule && rule->backend == PREF_MODULE)
			fprintf(out, "backend = module\n");
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

/*
 * No DEV: the attached devices, the refused ones (kernel backend), and
 * the present devices the configuration puts on the kernel backend.
 */
static int devices_to_save(const struct applier *ap, char ***names,
			   size_t *n)
{
	const struct conf_device *rule;
	struct device *st;
	char **present;
	size_t nst, np;
	bool loaded = !module_status(&st, &nst);

	*names = NULL;
	*n = 0;
	for (size_t i = 0; loaded && i < nst; i++)
		if (st[i].state == DEV_ATTACHED || st[i].state == DEV_REFUSED)
			list_add(names, n, st[i].ifname ? st[i].ifname :
				 st[i].name);
	if (loaded)
		devices_free(st, nst);
	present_devices(&present, &np);
	for (size_t i = 0; i < np; i++) {
		struct device dev;

		if (!device_load(present[i], &dev)) {
			rule = config_match(&ap->conf, &dev);
			if (rule && rule->backend == PREF_KERNEL)
				list_add(names, n, dev.ifname);
		}
		device_free(&dev);
	}
	list_free(present, np);
	if (*n)
		return EXIT_OK;
	if (!loaded)
		err_msg("xps_steer is not loaded and no present device has backend = kernel: nothing to save (name devices to save their kernel xps_cpus)");
	else
		err_msg("no device is attached to xps_steer, refused by it or configured with backend = kernel: nothing to save");
	return EXIT_NODEV;
}

int cmd_save(const struct cmd_args *a)
{
	struct apply_opts o;
	struct applier ap;
	char **names = NULL, *text = NULL, *path;
	const char *shown;
	size_t n = 0, len;
	FILE *out;
	int ret = EXIT_OK, err;

	if (check_ifnames(a->argc, a->argv))
		return EXIT_USAGE;
	apply_opts_init(&o, a);
	/* Which backend each device is on is the configuration's to say. */
	ret = applier_init(&ap, &o);
	if (ret)
		return ret;
	if (!a->argc)
		ret = devices_to_save(&ap, &names, &n);
	for (int i = 0; i < a->argc; i++)
		list_add(&names, &n, a->argv[i]);
	out = ret ? NULL : open_memstream(&text, &len);
	if (!ret && !out) {
		err_msg("out of memory");
		ret = EXIT_FAIL;
	}
	if (ret) {
		list_free(names, n);
		applier_free(&ap);
		return ret;
	}
	save_header(out, a->line_argc, a->line_argv);
	for (size_t i = 0; i < n; i++)
		ret = worse(ret, save_section(&ap, out, names[i]));
	fclose(out);
	list_free(names, n);
	applier_free(&ap);
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
