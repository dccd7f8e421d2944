// SPDX-License-Identifier: GPL-2.0
/*
 * Uevents for udev: "add" once a device is attached and its tree
 * /sys/kernel/xps_steer/<dev> is complete, "move" when it is renamed,
 * "remove" when it is detached. SUBSYSTEM=xps_steer, DEVPATH is the
 * device's directory, INTERFACE its name (and on "move" INTERFACE_OLD and
 * DEVPATH_OLD the old ones), so a rule can apply saved masks with no race
 * (docs/usage.md, "Attach events").
 *
 * kobject_uevent_env() sends only for a kobject that is, or has a parent
 * that is, a member of a kset; the kset names the subsystem. Our
 * directories are plain kobject_create_and_add() kobjects, so that their
 * release code stays in the kernel (sysfs.c), and such a kobject cannot
 * join a kset. So each event lends the directory membership of the root,
 * /sys/kernel/xps_steer, a kset named "xps_steer" without uevent_ops, for
 * the time of the call: no code of ours is ever called back, and no
 * kobject is left pointing at the kset. Outside these calls nothing can
 * send an event for a directory, not even kobject_rename() (which would
 * lack INTERFACE): the kernel finds no kset and stays silent.
 */
#include <linux/kobject.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>

#include "xps_steer.h"

/* Caller holds rtnl, which serialises every event and rename. */
void xps_steer_event(struct xps_steer_dev *xdev, enum kobject_action action,
		     const char *old_name)
{
	struct kobject *dir = xdev->dir;
	char *envp[4] = {}, *root_path = NULL;
	int err = -ENOMEM;

	ASSERT_RTNL();
	envp[0] = kasprintf(GFP_KERNEL, "INTERFACE=%s", xdev->name);
	if (!envp[0])
		goto out;
	if (old_name) {
		root_path = kobject_get_path(dir->parent, GFP_KERNEL);
		envp[1] = kasprintf(GFP_KERNEL, "INTERFACE_OLD=%s", old_name);
		if (root_path && envp[1])
			envp[2] = kasprintf(GFP_KERNEL, "DEVPATH_OLD=%s/%s",
					    root_path, old_name);
		if (!envp[2])
			goto out;
	}

	dir->kset = to_kset(dir->parent);
	err = kobject_uevent_env(dir, action, envp);
	dir->kset = NULL;
out:
	if (err)
		pr_warn("%s: cannot send the %s uevent (%d)\n", xdev->name,
			action == KOBJ_ADD ? "add" :
			action == KOBJ_MOVE ? "move" : "remove", err);
	kfree(envp[2]);
	kfree(envp[1]);
	kfree(envp[0]);
	kfree(root_path);
}
