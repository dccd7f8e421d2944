// SPDX-License-Identifier: GPL-2.0
/*
 * xps_steer: Transmit Packet Steering for a stock kernel.
 *
 * Module parameters, init and exit.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/string.h>
#include <net/net_namespace.h>

#include "xps_steer.h"

static char *xps_steer_dev_param;
module_param_named(dev, xps_steer_dev_param, charp, 0444);
MODULE_PARM_DESC(dev,
		 "Comma-separated names of the devices to attach to, in the initial network namespace (up to 32); a device that is not there yet is attached when it registers");

/* The names asked for by dev=, fixed once the module is loaded. */
static char xps_steer_names[XPS_STEER_MAX_NAMES][IFNAMSIZ];
static unsigned int xps_steer_nr_names;

bool xps_steer_name_requested(const char *name)
{
	unsigned int i;

	for (i = 0; i < xps_steer_nr_names; i++)
		if (!strcmp(xps_steer_names[i], name))
			return true;
	return false;
}

/* Check one dev= entry; log and fail on anything we would not act on. */
static int xps_steer_add_name(const char *name)
{
	if (!*name) {
		pr_err("dev=: empty device name in the list\n");
		return -EINVAL;
	}
	if (strlen(name) >= IFNAMSIZ) {
		pr_err("%s: dev=: device name longer than %d characters\n",
		       name, IFNAMSIZ - 1);
		return -EINVAL;
	}
	if (!dev_valid_name(name)) {
		pr_err("%s: dev=: not a valid device name\n", name);
		return -EINVAL;
	}
	if (xps_steer_name_requested(name)) {
		pr_err("%s: dev=: device named twice\n", name);
		return -EINVAL;
	}
	if (xps_steer_nr_names == XPS_STEER_MAX_NAMES) {
		pr_err("%s: dev=: more than %d devices named\n", name,
		       XPS_STEER_MAX_NAMES);
		return -EINVAL;
	}
	strscpy(xps_steer_names[xps_steer_nr_names++], name, IFNAMSIZ);
	return 0;
}

static int xps_steer_parse_names(void)
{
	char *list, *cursor, *name;
	int err = 0;

	if (!xps_steer_dev_param || !*xps_steer_dev_param) {
		pr_err("dev=: no device named; usage: modprobe xps_steer dev=eth0[,eth1...]\n");
		return -EINVAL;
	}
	list = kstrdup(xps_steer_dev_param, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	cursor = list;
	while (!err && (name = strsep(&cursor, ",")))
		err = xps_steer_add_name(name);
	kfree(list);
	return err;
}

/* One line for each name that did not find its device at load time. */
static void xps_steer_report_absent(void)
{
	unsigned int i;

	rtnl_lock();
	for (i = 0; i < xps_steer_nr_names; i++)
		if (!__dev_get_by_name(&init_net, xps_steer_names[i]))
			pr_info("%s: not present, will attach when it registers\n",
				xps_steer_names[i]);
	rtnl_unlock();
}

static int __init xps_steer_init(void)
{
	int err;

	err = xps_steer_parse_names();
	if (err)
		return err;
	err = xps_steer_sysfs_init();
	if (err)
		return err;
	err = xps_steer_attach_init();
	if (err)
		goto err_sysfs;
	xps_steer_report_absent();
	pr_info("version %s loaded\n", XPS_STEER_VERSION);
	return 0;

err_sysfs:
	xps_steer_sysfs_exit();
	return err;
}

static void __exit xps_steer_exit(void)
{
	xps_steer_attach_exit();
	xps_steer_sysfs_exit();
	pr_info("unloaded\n");
}

module_init(xps_steer_init);
module_exit(xps_steer_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The xps_steer authors");
MODULE_DESCRIPTION("Transmit Packet Steering: pick a device's TX queue from the sending CPU, without patching the kernel");
MODULE_VERSION(XPS_STEER_VERSION);
