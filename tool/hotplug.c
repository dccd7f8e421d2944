// SPDX-License-Identifier: GPL-2.0
/*
 * `xps-steer hotplug`, for the udev rule when a network device
 * appears.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "commands.h"
#include "common.h"
#include "config.h"
#include "device.h"

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
		/* Only the unit loads the module (and only when it started). */
		ret = attach_names(&ap->conf, &ifname, 1, false);
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

int cmd_hotplug(const struct cmd_args *a)
{
	struct apply_opts o;
	struct applier ap;
	char *ifname;
	int ret;

	if (check_ifname(a->argv[0]))
		return EXIT_USAGE;
	apply_opts_init(&o, a);
	ret = applier_init(&ap, &o);
	if (ret)
		return ret;
	ifname = resolve_ifname(a->argv[0]);
	ret = hotplug_device(&ap, ifname);
	free(ifname);
	applier_free(&ap);
	return ret;
}
