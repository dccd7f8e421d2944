// SPDX-License-Identifier: GPL-2.0
/*
 * Automatic maps: which CPUs send on which transmit queue.
 *
 * Every policy maps the eligible CPUs: all CPUs of the topology, offline
 * ones too (the module keeps them in its masks and steers them once they
 * come online), minus isolcpus/nohz_full, which keep the stock selection.
 * The rules are those of xps-steer(8), POLICIES; the tests (tests/policy.sh)
 * hold tables worked out by hand from them.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cpumask.h"
#include "policy.h"
#include "topology.h"

static const char *const policy_names[] = {
	[POLICY_ONE_TO_ONE] = "one-to-one",
	[POLICY_CACHE] = "cache",
	[POLICY_NUMA] = "numa",
	[POLICY_IRQ] = "irq",
};

int policy_parse(const char *name, enum policy *policy)
{
	for (size_t i = 0; i < ARRAY_SIZE(policy_names); i++)
		if (!strcmp(name, policy_names[i])) {
			*policy = i;
			return 0;
		}
	return -EINVAL;
}

const char *policy_name(enum policy policy)
{
	if ((size_t)policy < ARRAY_SIZE(policy_names))
		return policy_names[policy];
	return "?";
}

void policy_excluded_cpus(hwloc_bitmap_t set)
{
	static const char *const files[] = {
		"/sys/devices/system/cpu/isolated",
		"/sys/devices/system/cpu/nohz_full",
	};
	hwloc_bitmap_t one = hwloc_bitmap_alloc();

	hwloc_bitmap_zero(set);
	/*
	 * A missing file or one that is no CPU list (older kernels print
	 * "(null)" for nohz_full when it is off) excludes nothing.
	 */
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		if (!read_cpulist_file(files[i], one))
			hwloc_bitmap_or(set, set, one);
	hwloc_bitmap_free(one);
}

/* One computation: the masks being filled and the notes gathered. */
struct plan {
	hwloc_topology_t topo;
	hwloc_bitmap_t *masks;
	unsigned int nqueues;
	char *notes;
};

static void note(struct plan *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct plan *p, const char *fmt, ...)
{
	char *line, *all;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0) {
		err_msg("out of memory");
		exit(EXIT_FAIL);
	}
	va_end(ap);
	all = xasprintf("%s%s\n", p->notes ? p->notes : "", line);
	free(line);
	free(p->notes);
	p->notes = all;
}

/* "tx-1, tx-3, tx-5..tx-9": a set of queue numbers, for notes; free() it. */
static char *queue_names(hwloc_const_bitmap_t queues)
{
	char *text = xstrdup(""), *next;
	int q = hwloc_bitmap_first(queues);

	while (q >= 0) {
		int end = q;

		while (hwloc_bitmap_isset(queues, end + 1))
			end++;
		if (end - q >= 2)
			next = xasprintf("%s%stx-%d..tx-%d", text,
					 *text ? ", " : "", q, end);
		else if (end > q)
			next = xasprintf("%s%stx-%d, tx-%d", text,
					 *text ? ", " : "", q, end);
		else
			next = xasprintf("%s%stx-%d", text, *text ? ", " : "",
					 q);
		free(text);
		text = next;
		q = hwloc_bitmap_next(queues, end);
	}
	return text;
}

static unsigned int weight_in(hwloc_const_bitmap_t a, hwloc_const_bitmap_t b)
{
	hwloc_bitmap_t both = hwloc_bitmap_alloc();
	int n;

	hwloc_bitmap_and(both, a, b);
	n = hwloc_bitmap_weight(both);
	hwloc_bitmap_free(both);
	return n > 0 ? n : 0;
}

/* mask |= cpus & eligible */
static void add_cpus(hwloc_bitmap_t mask, hwloc_const_bitmap_t cpus,
		     hwloc_const_bitmap_t eligible)
{
	hwloc_bitmap_t both = hwloc_bitmap_alloc();

	hwloc_bitmap_and(both, cpus, eligible);
	hwloc_bitmap_or(mask, mask, both);
	hwloc_bitmap_free(both);
}

/*
 * m >= k children into k contiguous groups, group g to queue q0 + g. Each
 * cut is put where the eligible CPUs before it come closest to g/k of
 * them (the earlier place on a tie), leaving a child for every later group.
 */
static void split_children(struct plan *p, hwloc_obj_t *kids,
			   const unsigned int *w, unsigned int m,
			   unsigned int q0, unsigned int k,
			   hwloc_const_bitmap_t eligible)
{
	unsigned long long *before = xcalloc(m + 1, sizeof(*before));
	unsigned long long total;
	unsigned int start = 0;

	for (unsigned int i = 0; i < m; i++)
		before[i + 1] = before[i] + w[i];
	total = before[m];
	for (unsigned int g = 0; g < k; g++) {
		unsigned int end = m;

		if (g < k - 1) {
			unsigned long long ideal = (g + 1) * total;
			unsigned long long best = ULLONG_MAX;

			/* Compare before[e] * k with (g + 1) * total. */
			for (unsigned int e = start + 1; e <= m - (k - 1 - g);
			     e++) {
				unsigned long long at = before[e] * k;
				unsigned long long d = at > ideal ?
					at - ideal : ideal - at;

				if (d < best) {
					best = d;
					end = e;
				}
			}
		}
		for (unsigned int i = start; i < end; i++)
			add_cpus(p->masks[q0 + g], kids[i]->cpuset, eligible);
		start = end;
	}
	free(before);
}

/*
 * k > m queues over m children: a share proportional to each child's
 * eligible CPUs, at least 1 each, the rest by largest remainder (the
 * earlier child on a tie).
 */
struct share {
	const unsigned int *w;	/* eligible CPUs of each child */
	unsigned int *quota;
	long long k, total;
};

/* The child's exact share minus its quota, times total. */
static long long share_left(const struct share *s, unsigned int i)
{
	return s->k * s->w[i] - (long long)s->quota[i] * s->total;
}

static void share_queues(const unsigned int *w, unsigned int m,
			 unsigned int k, unsigned int *quota)
{
	struct share s = { .w = w, .quota = quota, .k = k };
	long long sum = 0;

	for (unsigned int i = 0; i < m; i++)
		s.total += w[i];
	for (unsigned int i = 0; i < m; i++) {
		quota[i] = s.k * w[i] / s.total;
		if (!quota[i])
			quota[i] = 1;
		sum += quota[i];
	}
	while (sum < k) {
		unsigned int best = 0;

		for (unsigned int i = 1; i < m; i++)
			if (share_left(&s, i) > share_left(&s, best))
				best = i;
		quota[best]++;
		sum++;
	}
	/* The minimum of 1 overshot: take from the most favoured. */
	while (sum > k) {
		int best = -1;

		for (unsigned int i = 0; i < m; i++)
			if (quota[i] > 1 && (best < 0 || share_left(&s, i) <=
					     share_left(&s, best)))
				best = i;
		quota[best]--;
		sum--;
	}
}

/*
 * The cache rule: queues q0 .. q0+k-1 over the eligible CPUs below obj,
 * splitting the tree from the top so that a queue's CPUs have the lowest
 * possible common ancestor. Only normal children count (NUMA nodes are
 * memory children, NICs I/O children).
 */
static void assign(struct plan *p, hwloc_obj_t obj, unsigned int q0,
		   unsigned int k, hwloc_const_bitmap_t eligible)
{
	hwloc_obj_t *kids;
	unsigned int *w, *quota, m = 0;

	/* One queue takes it all; a lone CPU given more takes the first. */
	if (k == 1 || !obj->arity) {
		add_cpus(p->masks[q0], obj->cpuset, eligible);
		return;
	}
	kids = xcalloc(obj->arity, sizeof(*kids));
	w = xcalloc(obj->arity, sizeof(*w));
	for (hwloc_obj_t c = obj->first_child; c; c = c->next_sibling) {
		unsigned int n = weight_in(c->cpuset, eligible);

		if (n) {
			kids[m] = c;
			w[m++] = n;
		}
	}
	if (!m) {
		add_cpus(p->masks[q0], obj->cpuset, eligible);
	} else if (m >= k) {
		split_children(p, kids, w, m, q0, k, eligible);
	} else {
		quota = xcalloc(m, sizeof(*quota));
		share_queues(w, m, k, quota);
		for (unsigned int i = 0; i < m; q0 += quota[i++])
			assign(p, kids[i], q0, quota[i], eligible);
		free(quota);
	}
	free(kids);
	free(w);
}

/* Do the (online part of the) CPUs have a cache in common? */
static bool shares_cache(hwloc_topology_t topo, hwloc_const_bitmap_t cpus)
{
	hwloc_obj_t anc = NULL, pu = NULL;

	while ((pu = hwloc_get_next_obj_inside_cpuset_by_type(topo, cpus,
							      HWLOC_OBJ_PU,
							      pu)))
		anc = anc ? hwloc_get_common_ancestor_obj(topo, anc, pu) : pu;
	for (; anc; anc = anc->parent)
		if (hwloc_obj_type_is_cache(anc->type))
			return true;
	return false;
}

/* Name every queue whose CPUs share no cache (cache and numa). */
static void note_cacheless(struct plan *p)
{
	static const hwloc_obj_type_t levels[] = {
		HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L3CACHE,
		HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L1CACHE,
	};
	hwloc_const_bitmap_t online =
		hwloc_topology_get_topology_cpuset(p->topo);
	hwloc_bitmap_t queues = hwloc_bitmap_alloc();
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
	char *names, top[32] = "";
	int ncaches = 0;

	for (unsigned int q = 0; q < p->nqueues; q++) {
		hwloc_bitmap_and(cpus, p->masks[q], online);
		if (hwloc_bitmap_weight(cpus) > 1 &&
		    !shares_cache(p->topo, cpus))
			hwloc_bitmap_set(queues, q);
	}
	if (!hwloc_bitmap_iszero(queues)) {
		for (size_t i = 0; i < ARRAY_SIZE(levels); i++) {
			ncaches = hwloc_get_nbobjs_by_type(p->topo, levels[i]);
			if (ncaches > 0) {
				hwloc_obj_t cache =
					hwloc_get_obj_by_type(p->topo, levels[i], 0);

				hwloc_obj_type_snprintf(top, sizeof(top), cache, 0);
				break;
			}
		}
		names = queue_names(queues);
		if (ncaches > 0)
			note(p, "%s: CPUs with no cache in common share a queue (%u queues for %d %s caches)",
			     names, p->nqueues, ncaches, top);
		else
			note(p, "%s: CPUs with no cache in common share a queue (the topology shows no caches)",
			     names);
		free(names);
	}
	hwloc_bitmap_free(cpus);
	hwloc_bitmap_free(queues);
}

/*
 * Offline CPUs have no place in hwloc's tree (Linux gives no topology
 * for them): they go to the queues in number order, in equal runs, as
 * the tree split puts cores in order. With SMT switched off, the offline
 * CPUs are the second threads, numbered like their cores: each lands on
 * its sibling's queue.
 */
static void spread_offline(struct plan *p, hwloc_const_bitmap_t offline)
{
	unsigned long long i = 0, n = hwloc_bitmap_weight(offline);
	char *list;
	int cpu;

	if (!n)
		return;
	hwloc_bitmap_foreach_begin(cpu, offline)
		hwloc_bitmap_set(p->masks[i++ * p->nqueues / n], cpu);
	hwloc_bitmap_foreach_end();
	list = cpulist_format(offline);
	note(p, "CPUs %s are offline and hwloc does not know their caches: they go to the queues in number order, in equal runs",
	     list);
	free(list);
}

static void one_to_one(struct plan *p, hwloc_const_bitmap_t eligible)
{
	unsigned int k = 0;
	int cpu;

	hwloc_bitmap_foreach_begin(cpu, eligible)
		hwloc_bitmap_set(p->masks[k++ % p->nqueues], cpu);
	hwloc_bitmap_foreach_end();
}

static void cache(struct plan *p, hwloc_const_bitmap_t online)
{
	assign(p, hwloc_get_root_obj(p->topo), 0, p->nqueues, online);
}

struct node_rank {
	hwloc_obj_t node;
	uint64_t distance;	/* from the NIC's node; 0: none known */
};

static int by_distance(const void *a, const void *b)
{
	const struct node_rank *x = a, *y = b;

	if (x->distance != y->distance)
		return x->distance < y->distance ? -1 : 1;
	return x->node->os_index < y->node->os_index ? -1 :
		x->node->os_index > y->node->os_index;
}

/*
 * The NUMA nodes, the NIC's first, then by latency from it (hwloc's
 * NUMA latency matrix, the firmware's SLIT), or by number when the
 * topology has none. Returns how many.
 */
static unsigned int order_nodes(hwloc_topology_t topo, hwloc_obj_t local,
				struct node_rank *rank)
{
	struct hwloc_distances_s *dist = NULL;
	unsigned int nr = 1, n = 0;
	hwloc_obj_t node = NULL;

	if (hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &nr, &dist,
					HWLOC_DISTANCES_KIND_MEANS_LATENCY,
					0) || !nr)
		dist = NULL;
	rank[n++] = (struct node_rank){ .node = local };
	while ((node = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE,
						  node))) {
		hwloc_uint64_t there, back;

		if (node == local)
			continue;
		rank[n] = (struct node_rank){ .node = node };
		if (dist && hwloc_distances_obj_pair_values(dist, local, node,
							    &there, &back))
			rank[n].distance = UINT64_MAX;	/* not in it */
		else if (dist)
			rank[n].distance = there;
		n++;
	}
	if (dist)
		hwloc_distances_release(topo, dist);
	qsort(rank + 1, n - 1, sizeof(*rank), by_distance);
	return n;
}

/* Is there something numa can do, or is it cache? Returns the node. */
static hwloc_obj_t nic_node(struct plan *p, const char *ifname)
{
	hwloc_bitmap_t near = hwloc_bitmap_alloc();
	int ret, node = -1;

	if (hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_NUMANODE) <= 1) {
		note(p, "one NUMA node: the same as policy cache");
		hwloc_bitmap_free(near);
		return NULL;
	}
	ret = ifname ? topology_nic_locality(p->topo, ifname, near, &node) :
		-ENOENT;
	hwloc_bitmap_free(near);
	if (ret)
		note(p, "%s is not in the topology: NUMA node unknown, the same as policy cache",
		     ifname ? ifname : "the device");
	else if (node < 0)
		note(p, "%s is attached above several NUMA nodes: the same as policy cache",
		     ifname);
	return node < 0 ? NULL :
		hwloc_get_numanode_obj_by_os_index(p->topo, node);
}

static void numa(struct plan *p, const char *ifname,
		 hwloc_const_bitmap_t online)
{
	hwloc_obj_t local = nic_node(p, ifname);
	int nnodes = hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_NUMANODE);
	hwloc_bitmap_t taken, cpus;
	struct node_rank *rank;
	unsigned int n, q = 0;

	if (!local) {
		cache(p, online);
		return;
	}
	rank = xcalloc(nnodes, sizeof(*rank));
	n = order_nodes(p->topo, local, rank);
	taken = hwloc_bitmap_alloc();
	cpus = hwloc_bitmap_alloc();
	for (unsigned int i = 0; i < n; i++) {
		unsigned int have, k;

		hwloc_bitmap_and(cpus, rank[i].node->cpuset, online);
		hwloc_bitmap_andnot(cpus, cpus, taken);
		have = hwloc_bitmap_weight(cpus);
		k = p->nqueues - q < have ? p->nqueues - q : have;
		if (k) {
			/* From the root: only this node's CPUs count. */
			assign(p, hwloc_get_root_obj(p->topo), q, k, cpus);
			q += k;
			hwloc_bitmap_or(taken, taken, cpus);
		} else if (have) {
			char *list = cpulist_format(cpus);

			note(p, "NUMA node %u (CPUs %s) got no queue: its CPUs keep the stock selection",
			     rank[i].node->os_index, list);
			free(list);
		}
	}
	hwloc_bitmap_free(cpus);
	hwloc_bitmap_free(taken);
	free(rank);
}

/* irq: each queue's IRQ affinity, without excluded CPUs. */
static int irq(struct plan *p, const struct policy_input *in)
{
	hwloc_bitmap_t missing = hwloc_bitmap_alloc();
	unsigned int found = 0;
	char *names;

	for (unsigned int q = 0; q < p->nqueues; q++) {
		hwloc_const_bitmap_t aff = in->irq_affinity ?
			in->irq_affinity[q] : NULL;

		if (!aff) {
			hwloc_bitmap_set(missing, q);
			continue;
		}
		found++;
		hwloc_bitmap_copy(p->masks[q], aff);
		if (in->exclude)
			hwloc_bitmap_andnot(p->masks[q], p->masks[q],
					    in->exclude);
		if (hwloc_bitmap_iszero(p->masks[q]) &&
		    !hwloc_bitmap_iszero(aff)) {
			char *list = cpulist_format(aff);

			note(p, "tx-%u: its IRQ goes to excluded CPUs only (%s): no CPU",
			     q, list);
			free(list);
		}
	}
	if (found && !hwloc_bitmap_iszero(missing)) {
		names = queue_names(missing);
		note(p, "%s: no IRQ found (or no affinity for it): no CPU",
		     names);
		free(names);
	}
	hwloc_bitmap_free(missing);
	return found ? 0 : -ENOENT;
}

/* Notes for all the policies: excluded CPUs, queues left empty. */
static void note_common(struct plan *p, enum policy kind,
			hwloc_const_bitmap_t exclude,
			hwloc_const_bitmap_t eligible)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char *text;

	if (exclude) {
		hwloc_bitmap_copy(set, exclude);
		if (p->topo)
			hwloc_bitmap_and(set, set, topology_all_cpus(p->topo));
		if (!hwloc_bitmap_iszero(set)) {
			text = cpulist_format(set);
			note(p, "CPUs %s (isolated or nohz_full) are in no queue: they keep the stock selection",
			     text);
			free(text);
		}
	}
	if (kind != POLICY_IRQ) {
		hwloc_bitmap_zero(set);
		for (unsigned int q = 0; q < p->nqueues; q++)
			if (hwloc_bitmap_iszero(p->masks[q]))
				hwloc_bitmap_set(set, q);
		if (!hwloc_bitmap_iszero(set)) {
			text = queue_names(set);
			note(p, "%s: no CPU (%u queues for %d eligible CPUs)",
			     text, p->nqueues, hwloc_bitmap_weight(eligible));
			free(text);
		}
	}
	hwloc_bitmap_free(set);
}

int policy_compute(enum policy policy, const struct policy_input *in,
		   hwloc_bitmap_t *masks, char **notes)
{
	struct plan p = {
		.topo = in->topo,
		.masks = masks,
		.nqueues = in->nqueues,
	};
	hwloc_bitmap_t eligible, online, offline;
	int ret = 0;

	*notes = NULL;
	for (unsigned int q = 0; q < in->nqueues; q++)
		hwloc_bitmap_zero(masks[q]);
	if (!in->nqueues)
		return 0;
	if (policy != POLICY_IRQ && !in->topo)
		return -EINVAL;

	eligible = hwloc_bitmap_alloc();
	online = hwloc_bitmap_alloc();
	offline = hwloc_bitmap_alloc();
	if (in->topo) {
		hwloc_bitmap_copy(eligible, topology_all_cpus(in->topo));
		if (in->exclude)
			hwloc_bitmap_andnot(eligible, eligible, in->exclude);
		hwloc_bitmap_and(online, eligible,
				 hwloc_topology_get_topology_cpuset(in->topo));
		hwloc_bitmap_andnot(offline, eligible, online);
	}
	switch (policy) {
	case POLICY_ONE_TO_ONE:
		one_to_one(&p, eligible);
		break;
	case POLICY_CACHE:
		cache(&p, online);
		break;
	case POLICY_NUMA:
		numa(&p, in->ifname, online);
		break;
	case POLICY_IRQ:
		ret = irq(&p, in);
		break;
	default:
		ret = -EINVAL;
	}
	if (!ret && (policy == POLICY_CACHE || policy == POLICY_NUMA)) {
		note_cacheless(&p);
		spread_offline(&p, offline);
	}
	if (!ret)
		note_common(&p, policy, in->exclude, eligible);
	hwloc_bitmap_free(offline);
	hwloc_bitmap_free(online);
	hwloc_bitmap_free(eligible);
	if (ret) {
		free(p.notes);
		p.notes = NULL;
		for (unsigned int q = 0; q < in->nqueues; q++)
			hwloc_bitmap_zero(masks[q]);
	}
	*notes = p.notes;
	return ret;
}
