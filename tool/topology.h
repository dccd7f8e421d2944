/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine's CPUs, caches, NUMA nodes and NICs, from
 * hwloc: this machine, or an XML file (--topology, tests).
 */
#ifndef XPS_STEER_TOPOLOGY_H
#define XPS_STEER_TOPOLOGY_H

#include <hwloc.h>

/*
 * Load the topology with I/O devices (so NICs can be placed), offline and
 * disallowed CPUs included (xps_steer keeps offline CPUs in its masks).
 * xml: an hwloc XML export, or NULL for this machine. NULL on error
 * (reported).
 */
hwloc_topology_t topology_load(const char *xml);
/*
 * The CPUs close to the NIC ifname (its first non-I/O ancestor's set)
 * and its NUMA node (-1 when the NIC or its node is unknown); returns 0,
 * or -ENOENT when hwloc does not know the NIC (then cpus is all CPUs).
 */
int topology_nic_locality(hwloc_topology_t topo, const char *ifname,
			  hwloc_bitmap_t cpus, int *node);
/* Every CPU of the topology, online or not. */
hwloc_const_bitmap_t topology_all_cpus(hwloc_topology_t topo);

#endif
