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
#include "cpumask.h"
#include "device.h"

#define SAVE_FILE	XS_CONF_DIR "/90-saved.conf"

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
	if (check_ifnames(argc - first, argv + first))
		return EXIT_USAGE;
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
