// SPDX-License-Identifier: GPL-2.0
/*
 * Probe kobj_attribute: our sysfs handlers have the show/store prototypes
 *   of struct kobj_attribute (unchanged since v2.6.25). A guard: the
 *   kobj_type changes (default_attrs to default_groups in v5.2/v5.18, a
 *   const kobj_type in v6.2+) never reach us, because we only use
 *   kobject_create_and_add() and sysfs_create_file(); this tells us at
 *   once if the attribute side ever changes too.
 * Kind: variant
 * Upstream: v2.6.25, "kobject: add kobj_attribute handling".
 * Group: kobj_attribute (required)
 */
#include <linux/kobject.h>
#include <linux/sysfs.h>

static ssize_t xps_probe_show(struct kobject *kobj, struct kobj_attribute *attr,
			      char *buf)
{
	return 0;
}

static ssize_t xps_probe_store(struct kobject *kobj,
			       struct kobj_attribute *attr, const char *buf,
			       size_t len)
{
	return len;
}

static struct kobj_attribute xps_probe_attr __used =
	__ATTR(xps_probe, 0644, xps_probe_show, xps_probe_store);
