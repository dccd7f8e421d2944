// SPDX-License-Identifier: GPL-2.0
/*
 * Guard mode: for a device whose ops we must not copy (a driver with its
 * own ndo_select_queue, or one that recognises its devices by their ops
 * pointer) but whose ordinary packets the kernel's XPS steers, our masks
 * are written into the kernel's own map with netif_set_xps_queue(), and
 * written again whenever that map no longer matches them. Drivers rewrite
 * or wipe it on reloads, channel, MTU and traffic-class changes, the
 * kernel drops CPUs that are offline when it is written, and nothing
 * announces any of that. So the map is compared with our masks after the
 * netdev events that come with such changes, after CPU hotplug, and
 * periodically as the backstop. The whole map is compared: the kernel
 * changes parts of it in place, so its pointer alone cannot tell.
 *
 * A driver may write the map again right after we restored it (virtio-net
 * on each CPU hotplug, a driver's reset loop). Such a drift, found soon
 * after our own write, is a fight: counted, logged, and the restores that
 * follow wait, twice as long for each fight in a row up to a few seconds,
 * so that neither writer spins; the wait ends once the map stays put.
 *
 * While every mask of a device is empty, its map is left to the driver,
 * as steer mode leaves such a device to the stock selection. Detaching
 * leaves the map as it is then: ours, unless a driver rewrote it since
 * the last check.
 *
 * The kernel's map is written under rtnl, as its own xps_cpus file
 * writes it; everything that writes holds rtnl, then xps_steer_lock.
 * Where the kernel's maps carry their own size (5.13) the periodic check
 * first compares without rtnl, and takes it only for a restore that is
 * due.
 */
#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/cpu.h>
#ifdef XPS_STEER_HAVE_CPUHP_SETUP_STATE
#include <linux/cpuhotplug.h>
#endif
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/notifier.h>
#include <linux/rcupdate.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "xps_steer.h"

/* The period of the backstop check; 0: events and hotplug only. */
#define GUARD_INTERVAL_MAX_MS	60000
static unsigned int interval_ms = 1000;

/*
 * A drift found within GUARD_FIGHT_MS plus the period of our last write
 * (by the next periodic check at the latest) is a fight. The restore of
 * the first fight in a row is not delayed; each later one waits, from
 * our last write, the back-off, which starts at GUARD_BACKOFF_MIN_MS and
 * doubles with each fight up to GUARD_BACKOFF_MAX_MS.
 */
#define GUARD_FIGHT_MS		500
#define GUARD_BACKOFF_MIN_MS	250
#define GUARD_BACKOFF_MAX_MS	4000

static void check_all(struct work_struct *work);
static DECLARE_DELAYED_WORK(check_work, check_all);
/* The same check, when a restore's back-off is over. */
static DECLARE_DELAYED_WORK(retry_work, check_all);

/* Set by the hotplug callbacks: the next check is theirs. */
static atomic_t hotplug_seen = ATOMIC_INIT(0);

/*
 * Guarded devices: the hotplug callbacks may take no lock of ours, as we
 * write the map under xps_steer_lock with CPU hotplug locked after it.
 */
static atomic_t nr_guarded = ATOMIC_INIT(0);

static const char *const trigger_names[] = {
	[XPS_STEER_BY_WRITE] = "write",
	[XPS_STEER_BY_EVENT] = "event",
	[XPS_STEER_BY_HOTPLUG] = "hotplug",
	[XPS_STEER_BY_POLL] = "poll",
};

#if IS_ENABLED(CONFIG_XPS)

bool xps_steer_guard_supported(void)
{
	return true;
}

/*
 * The two maps of a device, as the kernel keeps them: by CPU, and by
 * receive queue where the kernel has an rxqs map to guard.
 */
enum guard_map { GUARD_CPUS, GUARD_RXQS, GUARD_NR_MAPS = XPS_STEER_GUARD_MAPS };

static const char *const map_names[] = {
	[GUARD_CPUS] = "xps_cpus",
	[GUARD_RXQS] = "xps_rxqs",
};

/* One comparison of a device's maps with our masks. */
struct guard_sync {
	enum xps_steer_trigger by;	/* what made us look */
	/* A write to our files: its map and queues, whose errors are its. */
	enum guard_map map;
	const unsigned long *queues;
	/* Whether the drift of other queues is restored now, found by what. */
	bool decided, restore;
	enum xps_steer_trigger restore_by;
	unsigned int applied, restored;	/* queues written */
	int err;			/* the first refusal of the write's */
};

static bool map_supported(enum guard_map which)
{
	return which == GUARD_CPUS || XPS_STEER_KERNEL_RXQS;
}

/* Our mask of a queue in that map, and the number of bits it has. */
static unsigned long *our_mask(struct xps_steer_dev *xdev,
			       enum guard_map which, unsigned int queue)
{
	if (which == GUARD_RXQS)
		return xdev->rxq_masks + (size_t)queue * xdev->rxq_mask_longs;
	return xdev->masks + (size_t)queue * xdev->mask_longs;
}

static unsigned int map_bits(struct xps_steer_dev *xdev,
			     enum guard_map which)
{
	return which == GUARD_RXQS ? xdev->nr_rxqs : nr_cpu_ids;
}

static struct xps_dev_maps *kernel_maps(struct net_device *dev,
					enum guard_map which)
{
	if (which == GUARD_RXQS)
		return xps_steer_kernel_rxqs_maps(dev);
	return xps_steer_kernel_cpu_maps(dev);
}

/* Whether any queue has a mask in that map: only then is the map ours. */
static bool guarding(struct xps_steer_dev *xdev, enum guard_map which)
{
	unsigned int queue;

	for (queue = 0; queue < xdev->nr_queues; queue++)
		if (!bitmap_empty(our_mask(xdev, which, queue),
				  map_bits(xdev, which)))
			return true;
	return false;
}

/* The kernel's mask of one queue into out, as its own file shows it. */
static void read_kernel_mask(struct xps_steer_dev *xdev,
			     enum guard_map which, unsigned int queue,
			     unsigned long *out)
{
	unsigned int bits = map_bits(xdev, which);
	struct net_device *dev = xdev->dev;
	struct xps_dev_maps *maps;
	unsigned int id, ids, i;
	int tc, tcs;

	bitmap_zero(out, bits);
	/*
	 * Drivers write the map without rtnl (virtio-net on CPU hotplug),
	 * and the periodic check's first look (typed maps only, see
	 * restore_due()) holds none: the entries are freed after a grace
	 * period, so this is safe, if only a hint.
	 */
	rcu_read_lock();
	maps = kernel_maps(dev, which);
	tc = xps_steer_kernel_queue_tc(dev, queue);
	if (!maps || tc < 0)
		goto out;
	tcs = xps_steer_kernel_maps_tcs(dev, maps);
	if (tc >= tcs)
		goto out;
	ids = min_t(unsigned int, xps_steer_kernel_maps_ids(maps), bits);
	for (id = 0; id < ids; id++) {
		struct xps_map *map;

		map = xps_steer_kernel_map_at(maps, id * tcs + tc);
		if (!map)
			continue;
		for (i = 0; i < READ_ONCE(map->len); i++) {
			if (READ_ONCE(map->queues[i]) == queue) {
				__set_bit(id, out);
				break;
			}
		}
	}
out:
	rcu_read_unlock();
}

/*
 * Whether the kernel's mask of a queue differs from ours: for CPUs, on
 * the CPUs online now, as the kernel keeps no offline CPU it was given
 * and one that went offline after the write carries no packets.
 */
static bool differs(struct xps_steer_dev *xdev, enum guard_map which,
		    unsigned int queue)
{
	unsigned int bits = map_bits(xdev, which);
	unsigned long *theirs = xdev->guard.kernel_mask;
	unsigned long *diff = xdev->guard.diff_mask;

	read_kernel_mask(xdev, which, queue, theirs);
	bitmap_xor(diff, our_mask(xdev, which, queue), theirs, bits);
	if (which == GUARD_CPUS)
		return bitmap_intersects(diff, cpumask_bits(cpu_online_mask),
					 bits);
	return !bitmap_empty(diff, bits);
}

/*
 * Whether some queue of a device's maps differs from our masks. Without
 * rtnl the queue count and traffic classes may change meanwhile, so
 * that is a hint: a drift is compared again under rtnl before writing,
 * and one missed is seen by the next check.
 */
static bool drifted(struct xps_steer_dev *xdev)
{
	unsigned int active, queue;
	enum guard_map which;

	active = min(READ_ONCE(xdev->dev->real_num_tx_queues),
		     xdev->nr_queues);
	for (which = 0; which < GUARD_NR_MAPS; which++) {
		if (!map_supported(which) || !guarding(xdev, which))
			continue;
		for (queue = 0; queue < active; queue++)
			if (!xps_steer_class_refusal(xdev->dev, queue) &&
			    differs(xdev, which, queue))
				return true;
	}
	return false;
}

static int write_kernel_mask(struct xps_steer_dev *xdev,
			     enum guard_map which, unsigned int queue)
{
	struct cpumask *cpus = xdev->guard.cpus;

	if (which == GUARD_RXQS)
		return xps_steer_set_kernel_rxqs(xdev->dev,
						 our_mask(xdev, which, queue),
						 queue);
	bitmap_copy(cpumask_bits(cpus), our_mask(xdev, which, queue),
		    nr_cpu_ids);
	return netif_set_xps_queue(xdev->dev, cpus, queue);
}

/* Have the check run within delay jiffies, unless it is due sooner. */
static void retry_within(unsigned long delay)
{
	lockdep_assert_held(&xps_steer_lock);
	if (delayed_work_pending(&retry_work) &&
	    time_before_eq(retry_work.timer.expires, jiffies + delay))
		return;
	mod_delayed_work(system_unbound_wq, &retry_work, delay);
}

/* How long after our write a drift is the driver fighting us. */
static unsigned long fight_reach(void)
{
	return msecs_to_jiffies(GUARD_FIGHT_MS + READ_ONCE(interval_ms));
}

/*
 * The map matches our masks: a restore waiting is moot, and once a
 * fight's reach has passed, it stayed put: the back-off ends.
 */
static void map_intact(struct xps_steer_dev *xdev)
{
	struct xps_steer_guard *g = &xdev->guard;

	g->deferred = XPS_STEER_NR_TRIGGERS;
	if (g->recent && !time_before(jiffies, g->last_write + fight_reach())) {
		g->recent = 0;
		g->backoff_ms = 0;
	}
}

/* A drift found right after our write: count it, and back off. */
static void fight(struct xps_steer_dev *xdev, enum xps_steer_trigger by,
		  unsigned long now)
{
	struct xps_steer_guard *g = &xdev->guard;

	g->fights[by]++;
	/* This restore waits the back-off the last fight set, if any. */
	g->backoff_until = g->last_write + msecs_to_jiffies(g->backoff_ms);
	g->backoff_ms = clamp_t(unsigned int, g->backoff_ms * 2,
				GUARD_BACKOFF_MIN_MS, GUARD_BACKOFF_MAX_MS);
	pr_notice_ratelimited("%s: guard: kernel XPS map rewritten %u ms after xps_steer wrote it (%s): the driver fights the guard, restores back off up to %u ms\n",
			      xdev->name, jiffies_to_msecs(now - g->last_write),
			      trigger_names[by], g->backoff_ms);
}

/*
 * Whether the drift of queues other than a write's own may be written
 * now; decided once per comparison. A drift is judged when it is found:
 * a fight or not. While its back-off lasts it waits, with the trigger
 * that found it, for the retry.
 */
static bool may_restore(struct xps_steer_dev *xdev, struct guard_sync *s)
{
	struct xps_steer_guard *g = &xdev->guard;
	unsigned long now = jiffies;

	if (s->decided)
		return s->restore;
	s->decided = true;
	if (g->deferred == XPS_STEER_NR_TRIGGERS) {
		g->deferred = s->by;
		if (g->recent &&
		    time_before(now, g->last_write + fight_reach())) {
			fight(xdev, s->by, now);
		} else {
			g->backoff_ms = 0;
			g->backoff_until = now;
		}
	}
	if (time_before(now, g->backoff_until)) {
		retry_within(g->backoff_until - now);
		s->restore = false;
		return false;
	}
	s->restore_by = g->deferred;
	g->deferred = XPS_STEER_NR_TRIGGERS;
	s->restore = true;
	return true;
}

/* Whether queue is one a write to our files asked for, in this map. */
static bool asked_for(const struct guard_sync *s, enum guard_map which,
		      unsigned int queue)
{
	return s->queues && which == s->map && test_bit(queue, s->queues);
}

/* Write one queue's mask into the kernel's map; refusals counted, logged. */
static int write_queue(struct xps_steer_dev *xdev, enum guard_map which,
		       unsigned int queue, enum xps_steer_trigger by)
{
	int ret = write_kernel_mask(xdev, which, queue);

	if (ret) {
		xdev->guard.failed++;
		pr_warn_ratelimited("%s: guard: tx-%u: the kernel refused the %s map (%s) (%d)\n",
				    xdev->name, queue, map_names[which],
				    trigger_names[by], ret);
	}
	return ret;
}

/*
 * Compare one of the kernel's maps with our masks and write the queues
 * that differ: a write's own queues first, then, unless the kernel
 * refused one of those (the write is undone, and the rest of the map
 * must not have changed for it), the others as may_restore() lets.
 * Queues in no traffic class keep their masks unwritten, as the kernel
 * refuses them. The map is ours while a mask is set, and once more when
 * a write empties the last one.
 */
static void sync_one(struct xps_steer_dev *xdev, enum guard_map which,
		     struct guard_sync *s)
{
	bool mine = guarding(xdev, which);
	unsigned int active, queue;
	int ret;

	if (!map_supported(which) ||
	    (!mine && !(s->queues && xdev->guard.owned[which])))
		return;
	active = min(xdev->dev->real_num_tx_queues, xdev->nr_queues);
	for (queue = 0; queue < active; queue++) {
		if (!asked_for(s, which, queue) ||
		    xps_steer_class_refusal(xdev->dev, queue) ||
		    !differs(xdev, which, queue))
			continue;
		ret = write_queue(xdev, which, queue, XPS_STEER_BY_WRITE);
		if (ret)
			s->err = s->err ?: ret;
		else
			s->applied++;
	}
	if (s->err)
		return;
	xdev->guard.owned[which] = mine;
	for (queue = 0; queue < active; queue++) {
		if (asked_for(s, which, queue) ||
		    xps_steer_class_refusal(xdev->dev, queue) ||
		    !differs(xdev, which, queue) || !may_restore(xdev, s))
			continue;
		/* Another queue's refusal is not the write's. */
		if (!write_queue(xdev, which, queue, s->restore_by))
			s->restored++;
	}
}

/*
 * Bring both of the kernel's maps in line with our masks, as far as
 * guard_sync says; what made us look is counted when something was
 * restored. 0 or the first error of the kernel's writes of the write's
 * own queues.
 */
static int sync_map(struct xps_steer_dev *xdev, struct guard_sync *s)
{
	struct xps_steer_guard *g = &xdev->guard;
	enum guard_map which;

	ASSERT_RTNL();
	lockdep_assert_held(&xps_steer_lock);
	g->checks++;
	s->restore_by = s->by;
	for (which = 0; which < GUARD_NR_MAPS; which++)
		sync_one(xdev, which, s);
	/* No drift but in the write's own queues (the others, if refused, unseen). */
	if (!s->decided && !s->err)
		map_intact(xdev);
	if (s->applied || s->restored) {
		g->last_write = jiffies;
		g->recent = 1;
	}
	if (s->applied)
		g->applied++;
	if (s->restored) {
		g->restores[s->restore_by]++;
		pr_info_ratelimited("%s: guard: kernel XPS map restored (%s, %u queues)\n",
				    xdev->name, trigger_names[s->restore_by],
				    s->restored);
	}
	return s->err;
}

/* A check, by trigger: restore what drifted. */
static void restore(struct xps_steer_dev *xdev, enum xps_steer_trigger by)
{
	struct guard_sync s = { .by = by };

	sync_map(xdev, &s);
}

/*
 * The periodic check's first look, without rtnl: whether a restore is
 * due, that is a drift not waiting out a back-off. Only typed maps
 * (5.13) carry their own stride; before them it is dev->num_tc, which a
 * traffic-class change sets while the old map may still be read, and
 * only rtnl keeps the two together: there every check is due.
 */
static bool restore_due(struct xps_steer_dev *xdev)
{
	struct xps_steer_guard *g = &xdev->guard;
	unsigned long now = jiffies;

	lockdep_assert_held(&xps_steer_lock);
	if (!XPS_STEER_KERNEL_MAPS_OWN_SIZE)
		return guarding(xdev, GUARD_CPUS);
	g->checks++;
	if (!drifted(xdev)) {
		map_intact(xdev);
		return false;
	}
	if (g->deferred != XPS_STEER_NR_TRIGGERS &&
	    time_before(now, g->backoff_until)) {
		retry_within(g->backoff_until - now);
		return false;
	}
	return true;
}

/*
 * A write to our files: the kernel's map takes our masks of queues (a
 * bitmap of xdev->nr_queues bits) of the CPU or rxqs map before the write
 * returns. Other queues found off are restored as well, but what the
 * kernel refuses there is not the write's error. Caller holds rtnl and
 * xps_steer_lock; errors are logged.
 */
int xps_steer_guard_apply(struct xps_steer_dev *xdev, bool rxqs,
			  const unsigned long *queues)
{
	struct guard_sync s = {
		.by = XPS_STEER_BY_WRITE,
		.map = rxqs ? GUARD_RXQS : GUARD_CPUS,
		.queues = queues,
	};

	return sync_map(xdev, &s);
}

/* A netdev event of a guarded device; under rtnl, as notifiers run. */
void xps_steer_guard_event(struct xps_steer_dev *xdev)
{
	mutex_lock(&xps_steer_lock);
	restore(xdev, XPS_STEER_BY_EVENT);
	mutex_unlock(&xps_steer_lock);
}

#else /* !CONFIG_XPS: the kernel has no map to guard */

bool xps_steer_guard_supported(void)
{
	return false;
}

static void restore(struct xps_steer_dev *xdev, enum xps_steer_trigger by)
{
}

static bool restore_due(struct xps_steer_dev *xdev)
{
	return false;
}

int xps_steer_guard_apply(struct xps_steer_dev *xdev, bool rxqs,
			  const unsigned long *queues)
{
	return -EOPNOTSUPP;
}

void xps_steer_guard_event(struct xps_steer_dev *xdev)
{
}

#endif /* CONFIG_XPS */

/* Arm the periodic check, if there is a period and something to guard. */
static void schedule_check(void)
{
	unsigned int ms = READ_ONCE(interval_ms);

	if (ms && atomic_read(&nr_guarded))
		queue_delayed_work(system_unbound_wq, &check_work,
				   msecs_to_jiffies(ms));
}

static void check_all(struct work_struct *work)
{
	enum xps_steer_trigger by = XPS_STEER_BY_POLL;
	struct xps_steer_dev *xdev;
	bool due = false;

	if (atomic_xchg(&hotplug_seen, 0)) {
		/*
		 * Drivers rewrite their maps in the late steps of a hotplug
		 * (virtio-net when the CPU is dead): wait for the operation
		 * that queued us to finish before comparing.
		 */
		cpus_read_lock();
		cpus_read_unlock();
		by = XPS_STEER_BY_HOTPLUG;
	}
	/*
	 * rtnl is the whole stack's lock: a check that finds every map as
	 * we wrote it (nearly all of them) does without it.
	 */
	mutex_lock(&xps_steer_lock);
	list_for_each_entry(xdev, &xps_steer_devices, node)
		if (xdev->mode == XPS_STEER_MODE_GUARD && restore_due(xdev))
			due = true;
	if (!due) {
		if (work == &check_work.work)
			schedule_check();
		mutex_unlock(&xps_steer_lock);
		return;
	}
	mutex_unlock(&xps_steer_lock);

	rtnl_lock();
	mutex_lock(&xps_steer_lock);
	list_for_each_entry(xdev, &xps_steer_devices, node)
		if (xdev->mode == XPS_STEER_MODE_GUARD)
			restore(xdev, by);
	if (work == &check_work.work)
		schedule_check();
	mutex_unlock(&xps_steer_lock);
	rtnl_unlock();
}

#if defined(XPS_STEER_HAVE_CPUHP_SETUP_STATE) || \
	defined(XPS_STEER_HAVE_REGISTER_CPU_NOTIFIER)
/*
 * A CPU came online or went offline. Hotplug callbacks run with CPU
 * hotplug locked, under which nothing may take rtnl or write the map:
 * the check is queued, and waits for the hotplug to finish.
 */
static void cpu_changed(void)
{
	if (!atomic_read(&nr_guarded))
		return;
	atomic_set(&hotplug_seen, 1);
	mod_delayed_work(system_unbound_wq, &check_work, 0);
}
#endif

#ifdef XPS_STEER_HAVE_CPUHP_SETUP_STATE
static int hotplug_state;	/* 0: none to be had */

static int cpu_up_or_down(unsigned int cpu)
{
	cpu_changed();
	return 0;
}

/*
 * There are few dynamic states (30 in 6.1); without one guard mode still
 * works: the periodic check finds what a hotplug changed.
 */
static void hotplug_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN,
					"net/xps_steer:guard", cpu_up_or_down,
					cpu_up_or_down);
	if (ret < 0) {
		pr_warn("guard: no CPU hotplug state free (%d): CPU hotplug is seen by the periodic check only\n",
			ret);
		return;
	}
	hotplug_state = ret;
}

static void hotplug_exit(void)
{
	if (hotplug_state > 0)
		cpuhp_remove_state_nocalls(hotplug_state);
	hotplug_state = 0;
}
#elif defined(XPS_STEER_HAVE_REGISTER_CPU_NOTIFIER)
/* Before the cpuhp states (3.10): the CPU notifier chain. */
static bool hotplug_registered;

static int cpu_event(struct notifier_block *nb, unsigned long action,
		     void *hcpu)
{
	switch (action & ~CPU_TASKS_FROZEN) {
	case CPU_ONLINE:
	case CPU_DEAD:
		cpu_changed();
		break;
	}
	return NOTIFY_OK;
}

static struct notifier_block cpu_notifier = {
	.notifier_call = cpu_event,
};

static void hotplug_init(void)
{
	int ret = register_cpu_notifier(&cpu_notifier);

	if (ret) {
		pr_warn("guard: no CPU notifier (%d): CPU hotplug is seen by the periodic check only\n",
			ret);
		return;
	}
	hotplug_registered = true;
}

static void hotplug_exit(void)
{
	if (hotplug_registered)
		unregister_cpu_notifier(&cpu_notifier);
	hotplug_registered = false;
}
#else
/*
 * Neither cpuhp states nor CPU notifiers: the periodic check finds what
 * a hotplug changed (guard_interval_ms=0 then leaves it to the events).
 */
static void hotplug_init(void)
{
}

static void hotplug_exit(void)
{
}
#endif

/* A device to be guarded: its scratch space, one mask of either map. */
int xps_steer_guard_init_dev(struct xps_steer_dev *xdev)
{
	unsigned int longs = max(xdev->mask_longs, xdev->rxq_mask_longs);

	xdev->guard.deferred = XPS_STEER_NR_TRIGGERS;
	xdev->guard.kernel_mask = bitmap_zalloc(longs * BITS_PER_LONG,
						GFP_KERNEL);
	xdev->guard.diff_mask = bitmap_zalloc(longs * BITS_PER_LONG,
					      GFP_KERNEL);
	xdev->guard.cpus = kzalloc(cpumask_size(), GFP_KERNEL);
	if (!xdev->guard.kernel_mask || !xdev->guard.diff_mask ||
	    !xdev->guard.cpus) {
		xps_steer_guard_free(xdev);
		return -ENOMEM;
	}
	return 0;
}

/* xdev is on the list now: start checking it. */
void xps_steer_guard_start(struct xps_steer_dev *xdev)
{
	lockdep_assert_held(&xps_steer_lock);
	atomic_inc(&nr_guarded);
	schedule_check();
}

/* xdev is off the list now: the checks no longer need to run for it. */
void xps_steer_guard_stop(struct xps_steer_dev *xdev)
{
	lockdep_assert_held(&xps_steer_lock);
	atomic_dec(&nr_guarded);
}

void xps_steer_guard_free(struct xps_steer_dev *xdev)
{
	bitmap_free(xdev->guard.kernel_mask);
	bitmap_free(xdev->guard.diff_mask);
	kfree(xdev->guard.cpus);
	xdev->guard.kernel_mask = NULL;
	xdev->guard.diff_mask = NULL;
	xdev->guard.cpus = NULL;
}

/*
 * The stats file of a guarded device: "name value" lines. backoff_ms is
 * what the next fight in a row would make the restores wait (0: none).
 */
ssize_t xps_steer_guard_show_stats(struct xps_steer_dev *xdev, char *buf)
{
	const struct xps_steer_guard *g = &xdev->guard;
	enum xps_steer_trigger by;
	ssize_t len;

	lockdep_assert_held(&xps_steer_lock);
	len = sysfs_emit(buf, "applied %lu\n", g->applied);
	for (by = 0; by < XPS_STEER_NR_TRIGGERS; by++)
		len += sysfs_emit_at(buf, len, "restored_by_%s %lu\n",
				     trigger_names[by], g->restores[by]);
	for (by = 0; by < XPS_STEER_NR_TRIGGERS; by++)
		len += sysfs_emit_at(buf, len, "fights_by_%s %lu\n",
				     trigger_names[by], g->fights[by]);
	len += sysfs_emit_at(buf, len, "backoff_ms %u\n", g->backoff_ms);
	len += sysfs_emit_at(buf, len, "restore_failed %lu\n", g->failed);
	len += sysfs_emit_at(buf, len, "checks %lu\n", g->checks);
	return len;
}

/* guard_interval_ms: 0 to GUARD_INTERVAL_MAX_MS; a change re-arms. */
static int interval_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;
	int err;

	err = kstrtouint(val, 0, &ms);
	if (err || ms > GUARD_INTERVAL_MAX_MS) {
		pr_warn("guard_interval_ms: '%.*s' is not 0 to %u milliseconds (%d)\n",
			(int)strcspn(val, "\n"), val, GUARD_INTERVAL_MAX_MS,
			-EINVAL);
		return -EINVAL;
	}
	WRITE_ONCE(interval_ms, ms);
	if (ms && atomic_read(&nr_guarded))
		mod_delayed_work(system_unbound_wq, &check_work,
				 msecs_to_jiffies(ms));
	return 0;
}

static int interval_get(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%u\n", READ_ONCE(interval_ms));
}

const struct kernel_param_ops xps_steer_guard_interval_ops = {
	.set = interval_set,
	.get = interval_get,
};

/*
 * Without a hotplug trigger guard mode still works: never fails. A
 * kernel without XPS has nothing to guard, so no hotplug state is taken.
 */
int xps_steer_guard_init(void)
{
	if (xps_steer_guard_supported())
		hotplug_init();
	return 0;
}

/* Nothing is guarded any more: each guarded device held the module. */
void xps_steer_guard_exit(void)
{
	hotplug_exit();
	cancel_delayed_work_sync(&check_work);
	cancel_delayed_work_sync(&retry_work);
}
