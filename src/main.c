// SPDX-License-Identifier: GPL-2.0
/*
 * xps_steer: Transmit Packet Steering for a stock kernel.
 *
 * Module parameters, init and exit.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "xps_steer.h"

/* The load-time dev=; at runtime the parameter shows and sets attach.c's list. */
static char *dev_param;
module_param_cb(dev, &xps_steer_dev_param_ops, &dev_param, 0644);
MODULE_PARM_DESC(dev,
		 "Comma-separated names of the devices to attach to, in the initial network namespace (up to 32); a name followed by :guard is served in guard mode; a device that is not there yet is attached when it registers. Writable: devices left out of a new list are detached (an empty list detaches all, which unloading needs)");

module_param_cb(guard_interval_ms, &xps_steer_guard_interval_ops, NULL, 0644);
MODULE_PARM_DESC(guard_interval_ms,
		 "Guard mode: how often, in milliseconds, each guarded device's kernel XPS map is compared with its masks and restored, besides after netdev events and CPU hotplug (0: never, at most 60000; default 1000)");

static int __init xps_steer_init(void)
{
	int err;

	err = xps_steer_slots_init();
	if (err)
		return err;
	err = xps_steer_guard_init();
	if (err)
		goto err_slots;
	err = xps_steer_sysfs_init();
	if (err)
		goto err_guard;
	err = xps_steer_status_init();
	if (err)
		goto err_sysfs;
	err = xps_steer_attach_init(dev_param);
	if (err)
		goto err_status;
	pr_info("version %s loaded\n", XPS_STEER_VERSION);
	return 0;

err_status:
	xps_steer_status_exit();
err_sysfs:
	xps_steer_sysfs_exit();
err_guard:
	xps_steer_guard_exit();
err_slots:
	xps_steer_slots_exit();
	return err;
}

static void __exit xps_steer_exit(void)
{
	xps_steer_attach_exit();
	xps_steer_status_exit();
	xps_steer_sysfs_exit();
	xps_steer_guard_exit();
	xps_steer_slots_exit();
	pr_info("unloaded\n");
}

module_init(xps_steer_init);
module_exit(xps_steer_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The xps_steer authors");
MODULE_DESCRIPTION("Transmit Packet Steering: pick a device's TX queue from the sending CPU, without patching the kernel");
MODULE_VERSION(XPS_STEER_VERSION);
