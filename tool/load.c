// SPDX-License-Identifier: GPL-2.0
/*
 * `xps-steer load`, for the systemd unit at boot: put what the
 * configuration names into the module's device list, then apply.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "commands.h"
#include "common.h"
#include "config.h"
#include "device.h"

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

/*
 * The listed names to drop: absent, not asked for now, and listed only
 * for a name pattern (veth* and the like come and go under new names, and
 * dev= would fill up; hotplug lists them again when they appear).
 */
static void stale_names(const struct config *conf, char *const *names,
			size_t n, char ***stale, size_t *nstale)
{
	struct device *st;
	size_t nst;

	*stale = NULL;
	*nstale = 0;
	if (module_status(&st, &nst))
		return;
	for (size_t i = 0; i < nst; i++)
		if (st[i].state == DEV_ABSENT && !list_has(names, n, st[i].name) &&
		    config_pattern_only(conf, st[i].name))
			list_add(stale, nstale, st[i].name);
	devices_free(st, nst);
}

static int load_module_with(char *const *names, size_t n)
{
	char *list = list_join(names, n, ",");
	int err = module_load(names, n);

	if (err)
		err_msg("modprobe xps_steer dev=%s failed (%s)", list,
			strerror(-err));
	else
		printf("xps_steer: loaded with dev=%s\n", list);
	free(list);
	return err ? EXIT_FAIL : EXIT_OK;
}

static int attach_names_locked(const struct config *conf,
			       char *const *names, size_t n, bool may_load)
{
	char **cur = NULL, **stale, *list, *dropped;
	size_t ncur = 0, nstale, before, kept = 0;
	int err;

	if (!module_loaded()) {
		if (n && !may_load)
			printf("xps_steer is not loaded: %s not listed\n", names[0]);
		return n && may_load ? load_module_with(names, n) : EXIT_OK;
	}
	err = dev_list_read(&cur, &ncur);
	if (err) {
		err_msg("cannot read xps_steer's device list (%s)", strerror(-err));
		return EXIT_FAIL;
	}
	stale_names(conf, names, n, &stale, &nstale);
	for (size_t i = 0; i < ncur; i++) {
		if (list_has(stale, nstale, cur[i]))
			free(cur[i]);
		else
			cur[kept++] = cur[i];
	}
	ncur = kept;
	before = ncur;
	for (size_t i = 0; i < n; i++)
		list_add(&cur, &ncur, names[i]);
	if (ncur == before && !nstale) {
		list_free(cur, ncur);
		return EXIT_OK;
	}
	err = dev_list_write(cur, ncur);
	list = list_join(cur, ncur, ",");
	dropped = nstale ? list_join(stale, nstale, ",") : NULL;
	if (err)
		err_msg("cannot write xps_steer's device list %s (%s)%s", list,
			strerror(-err), err == -EINVAL ?
			": the kernel log (dmesg) says which entry" : "");
	else if (dropped)
		printf("xps_steer: dev=%s (dropped %s: absent, listed for a name pattern only; added again when they appear)\n",
		       list, dropped);
	else
		printf("xps_steer: dev=%s\n", list);
	free(dropped);
	free(list);
	list_free(stale, nstale);
	list_free(cur, ncur);
	return err ? EXIT_FAIL : EXIT_OK;
}

/*
 * Add names to dev= (the union with what is there, less the stale pattern
 * names), with the list locked against other instances; when the module
 * is not loaded, load it with them if may_load, else change nothing.
 */
int attach_names(const struct config *conf, char *const *names, size_t n,
		 bool may_load)
{
	int lock = dev_list_lock();
	int ret = attach_names_locked(conf, names, n, may_load);

	dev_list_unlock(lock);
	return ret;
}

int cmd_load(const struct cmd_args *a)
{
	struct apply_opts o;
	struct applier ap;
	char **names;
	size_t n;
	int ret;

	apply_opts_init(&o, a);
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
	ret = attach_names(&ap.conf, names, n, true);
	list_free(names, n);
	ret = worse(ret, apply_present(&ap));
	applier_free(&ap);
	return ret;
}
