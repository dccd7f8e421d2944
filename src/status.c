// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/module/xps_steer/status: one line for each name in dev=, in its
 * order, saying whether that device is attached, absent or refused, and
 * why, so that a refusal outlives the kernel log that reported it. The
 * format is an interface (docs/usage.md, "Status"): keep it.
 *
 * A refusal is kept with the device it was about, under the name the
 * device had then; attach.c forgets it when that device registers,
 * changes its name or goes away, and forgets all when dev= changes (it
 * tries every listed device again then). Everything here is read and
 * changed under rtnl, which also keeps the device's ops and queue count
 * still while a line is printed.
 *
 * A line is at most about 135 bytes (a guarded denylisted device with
 * 15-character names and 5-digit queue counts) and dev= names 32 devices
 * at most: the page sysfs gives a show handler holds 30 such lines, so
 * only 32 of the longest could cut the file at the page (scnprintf).
 */
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "xps_steer.h"

struct refusal {
	const struct net_device *dev;	/* NULL: unused */
	char name[IFNAMSIZ];		/* dev's name when it was refused */
	enum xps_steer_verdict verdict;
	const char *driver;		/* the denylist's entry */
	unsigned int queues;		/* too many: how many */
	int err;			/* its errno */
};

/* At most one per name in dev=, whose names are unique. */
static struct refusal refusals[XPS_STEER_MAX_DEVS];

void xps_steer_status_refused(const struct net_device *dev,
			      enum xps_steer_verdict verdict,
			      const struct xps_steer_facts *facts)
{
	unsigned int i;

	ASSERT_RTNL();
	xps_steer_status_forget(dev);
	for (i = 0; i < ARRAY_SIZE(refusals); i++) {
		if (refusals[i].dev)
			continue;
		refusals[i].dev = dev;
		strscpy(refusals[i].name, dev->name, IFNAMSIZ);
		refusals[i].verdict = verdict;
		refusals[i].driver = facts ? facts->driver : NULL;
		refusals[i].queues = facts ? facts->queues : 0;
		refusals[i].err = xps_steer_verdict_err(verdict, facts);
		return;
	}
	/* Not reached: only listed names are refused. Absent, then. */
}

/* Forget what was found about dev (NULL: about every device). */
void xps_steer_status_forget(const struct net_device *dev)
{
	unsigned int i;

	ASSERT_RTNL();
	for (i = 0; i < ARRAY_SIZE(refusals); i++)
		if (!dev || refusals[i].dev == dev)
			refusals[i].dev = NULL;
}

static const struct refusal *find_refusal(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(refusals); i++)
		if (refusals[i].dev && !strcmp(refusals[i].name, name))
			return &refusals[i];
	return NULL;
}

/*
 * The attached device name stands for: the one with that name now, else
 * one that was attached under it and renamed since.
 */
static struct xps_steer_dev *find_attached(const char *name)
{
	struct xps_steer_dev *xdev;

	list_for_each_entry(xdev, &xps_steer_devices, node)
		if (!strcmp(xdev->name, name))
			return xdev;
	list_for_each_entry(xdev, &xps_steer_devices, node)
		if (!strcmp(xdev->attached_as, name))
			return xdev;
	return NULL;
}

static const char * const hook_names[] = {
	[XPS_STEER_HOOK_INSTALLED] = "installed",
	[XPS_STEER_HOOK_COPIED] = "copied",
	[XPS_STEER_HOOK_REPLACED] = "replaced",
	[XPS_STEER_HOOK_NONE] = "none",
};

/*
 * mode= and guard= follow the keys of older versions, so that parsers of
 * those still read them; a guarded device has no hook ("none"). The
 * denylist's driver comes last: its value runs to the end of the line.
 */
static int emit_attached(char *buf, int at, const char *name,
			 const struct xps_steer_dev *xdev)
{
	bool guard = xdev->mode == XPS_STEER_MODE_GUARD;

	at += scnprintf(buf + at, PAGE_SIZE - at,
			"%s attached queues=%u active=%u hook=%s name=%s mode=%s",
			name, xdev->nr_queues, xdev->dev->real_num_tx_queues,
			hook_names[xps_steer_hook_state(xdev)],
			xdev->dev->name, guard ? "guard" : "steer");
	if (guard)
		at += scnprintf(buf + at, PAGE_SIZE - at, " guard=%s",
				xps_steer_verdicts[xdev->verdict].word);
	if (guard && xdev->guard_driver)
		at += scnprintf(buf + at, PAGE_SIZE - at, " driver=%s",
				xdev->guard_driver);
	return at + scnprintf(buf + at, PAGE_SIZE - at, "\n");
}

/* driver= comes last: its value runs to the end of the line. */
static int emit_refused(char *buf, int at, const char *name,
			const struct refusal *r)
{
	const struct xps_steer_verdict_row *row = &xps_steer_verdicts[r->verdict];

	at += scnprintf(buf + at, PAGE_SIZE - at, "%s %s reason=%s error=%d",
			name, row->state, row->word, r->err);
	if (r->verdict == XPS_STEER_TOO_MANY_QUEUES)
		at += scnprintf(buf + at, PAGE_SIZE - at, " queues=%u max=%u",
				r->queues, XPS_STEER_MAX_QUEUES);
	if (r->driver)
		at += scnprintf(buf + at, PAGE_SIZE - at, " driver=%s",
				r->driver);
	return at + scnprintf(buf + at, PAGE_SIZE - at, "\n");
}

static ssize_t status_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	const struct xps_steer_dev *xdev;
	const struct refusal *r;
	const char *name;
	unsigned int i;
	int at = 0;

	/* Not from a directory removed under rtnl: taking it cannot deadlock. */
	rtnl_lock();
	for (i = 0; (name = xps_steer_requested_name(i)); i++) {
		xdev = find_attached(name);
		r = xdev ? NULL : find_refusal(name);
		if (xdev)
			at = emit_attached(buf, at, name, xdev);
		else if (r)
			at = emit_refused(buf, at, name, r);
		else
			at += scnprintf(buf + at, PAGE_SIZE - at, "%s absent\n",
					name);
	}
	rtnl_unlock();
	return at;
}

static struct kobj_attribute status_attr = __ATTR_RO(status);

int xps_steer_status_init(void)
{
	return sysfs_create_file(&THIS_MODULE->mkobj.kobj, &status_attr.attr);
}

void xps_steer_status_exit(void)
{
	sysfs_remove_file(&THIS_MODULE->mkobj.kobj, &status_attr.attr);
}
