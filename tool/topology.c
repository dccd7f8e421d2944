// SPDX-License-Identifier: GPL-2.0
/*
 * The machine's topology from hwloc: this machine, or an XML
 * export of another one (--topology, and the tests' fixtures).
 */
#include <errno.h>
#include <string.h>

#include "common.h"
#include "topology.h"

hwloc_topology_t topology_load(const char *xml)
{
	hwloc_topology_t topo;
	const char *what = xml ? xml : "this machine";

	errno = 0;
	if (hwloc_topology_init(&topo)) {
		err_msg("cannot set up hwloc (%s)", strerror(errno));
		return NULL;
	}
	/*
	 * NICs are I/O objects: keep them (and the bridges that lead to
	 * them) to know which CPUs are near a NIC. Disallowed CPUs (cgroups)
	 * are kept too: masks are system-wide, not the caller's.
	 */
	hwloc_topology_set_io_types_filter(topo,
					   HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	hwloc_topology_set_flags(topo,
				 HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	if ((xml && hwloc_topology_set_xml(topo, xml)) ||
	    hwloc_topology_load(topo)) {
		err_msg("%s: cannot load the topology (%s)", what,
			strerror(errno ? errno : EINVAL));
		hwloc_topology_destroy(topo);
		return NULL;
	}
	return topo;
}

/* The network OS device named ifname ("eth0"), or NULL. */
static hwloc_obj_t find_netdev(hwloc_topology_t topo, const char *ifname)
{
	hwloc_obj_t os = NULL;

	while ((os = hwloc_get_next_osdev(topo, os)))
		if (os->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK &&
		    os->name && !strcmp(os->name, ifname))
			return os;
	return NULL;
}

int topology_nic_locality(hwloc_topology_t topo, const char *ifname,
			  hwloc_bitmap_t cpus, int *node)
{
	hwloc_obj_t os = find_netdev(topo, ifname), anc;

	*node = -1;
	if (!os) {
		hwloc_bitmap_copy(cpus, topology_all_cpus(topo));
		return -ENOENT;
	}
	/* I/O objects have no CPUs: the first normal ancestor says where. */
	anc = hwloc_get_non_io_ancestor_obj(topo, os);
	hwloc_bitmap_copy(cpus, anc->cpuset);
	/* A NIC attached above several nodes (the machine) has no node. */
	if (hwloc_bitmap_weight(anc->nodeset) == 1)
		*node = hwloc_bitmap_first(anc->nodeset);
	return 0;
}

hwloc_const_bitmap_t topology_all_cpus(hwloc_topology_t topo)
{
	/* The complete set has the offline CPUs, which have no PU object. */
	return hwloc_topology_get_complete_cpuset(topo);
}
