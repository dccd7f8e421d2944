// SPDX-License-Identifier: GPL-2.0
/*
 * What attach.c needs to know of drivers, in two tables.
 *
 * Drivers whose devices we must never wrap: they recognise their own
 * devices by comparing dev->netdev_ops with their ops table, so a device
 * carrying our copy of the ops stops being theirs, with consequences
 * ranging from lost features to corrupted private data. Those devices
 * are guarded instead (guard.c), which leaves their ops alone.
 *
 * Drivers whose own ndo_select_queue never consults the kernel's XPS
 * map: neither mode can steer them, so they are refused. Any other
 * driver with its own ndo_select_queue is guarded: most end in
 * netdev_pick_tx(), which reads the kernel's map.
 *
 * scripts/drivers-md.sh writes docs/drivers.md from this file: the
 * tables below, with each entry's citation, and the list of comparisons
 * that are not listed, further down. Keep them in their format.
 */
#include <linux/device.h>
#include <linux/netdevice.h>
#include <linux/string.h>
#include <net/rtnetlink.h>

#include "xps_steer.h"

/* What an entry's name is compared with. */
enum xps_steer_match {
	XPS_STEER_BY_DRIVER,	/* dev->dev.parent's bus driver */
	XPS_STEER_BY_KIND,	/* dev->rtnl_link_ops->kind */
	XPS_STEER_BY_DEVTYPE,	/* dev->dev.type->name */
	XPS_STEER_BY_DSA_MASTER, /* a DSA master, if DSA swaps its ops */
};

struct xps_steer_denied {
	enum xps_steer_match match;
	const char *name;
	const char *why;
};

/*
 * DENY(match, name, why, cite, kernels): cite is the comparison that
 * justifies the entry, as file:line and function in Debian's 6.1.192
 * sources (drivers/net and net), and kernels the ones it applies to.
 * Both are for the reader and for docs/drivers.md; the module keeps
 * neither.
 *
 * The order of the checks in attach.c matters: a single-queue device is
 * refused as such before this list is consulted, and a device on this
 * list is refused by it before the check for a driver's own
 * ndo_select_queue. Entries that those rules catch today are kept, so
 * that a driver that gains multiqueue devices or loses its
 * ndo_select_queue is still refused; their citation says so.
 */
#define DENY(match, name, why, cite, kernels) \
	{ XPS_STEER_BY_##match, name, why }

static const struct xps_steer_denied xps_steer_denylist[] = {
	/* Bus drivers: the parent device's driver. */
	DENY(DRIVER, "ixgbe",
	     "netif_is_ixgbe() in its RX path would treat the device as a macvlan",
	     "drivers/net/ethernet/intel/ixgbe/ixgbe_main.c:180 netif_is_ixgbe(): dev->netdev_ops == &ixgbe_netdev_ops; its caller ixgbe_process_skb_fields() (line 1708) otherwise calls macvlan_count_rx() on the device's private data. Its ndo_select_queue exists only with CONFIG_FCOE (IXGBE_FCOE, ixgbe.h:24)",
	     "all"),
	DENY(DRIVER, "hv_netvsc",
	     "VF pairing looks for its own netdev_ops",
	     "drivers/net/hyperv/netvsc_drv.c:2120 get_netvsc_byref(), :2465 check_dev_is_matching_vf(), :2828 netvsc_netdev_event(): dev->netdev_ops ==/!= &device_ops. Has its own ndo_select_queue today (netvsc_select_queue, line 2003): kept in case that goes",
	     "all"),
	DENY(DRIVER, "mlx5_core",
	     "uplink representor and TC tunnel offload checks",
	     "drivers/net/ethernet/mellanox/mlx5/core/en_rep.c:662 mlx5e_eswitch_uplink_rep(), en_tc.c:4908 mlx5e_tc_netdev_event(), en/tc_tun_encap.c:689 mlx5e_set_vf_tunnel() and five more: netdev_ops ==/!= &mlx5e_netdev_ops (or &mlx5e_netdev_ops_rep). Has its own ndo_select_queue today (mlx5e_select_queue, en_main.c:4854): kept in case that goes",
	     "all"),
	DENY(DRIVER, "mlx5_core.sf",
	     "uplink representor and TC tunnel offload checks",
	     "as for mlx5_core: a subfunction's netdev (en_main.c:5027 SET_NETDEV_DEV(netdev, mdev->device)) has for parent the auxiliary device that sf/dev/driver.c:22 names mdev->device, bound to the auxiliary driver mlx5_core.sf (sf/dev/dev.h:11, drivers/base/auxiliary.c:386)",
	     "all"),
	DENY(DRIVER, "ice",
	     "LAG, TC offload and representor checks",
	     "drivers/net/ethernet/intel/ice/ice_main.c:85 netif_is_ice(): dev->netdev_ops == &ice_netdev_ops or &ice_netdev_safe_mode_ops (TC redirect, ice_tc_lib.c:635); ice_repr.c:266 ice_is_port_repr_netdev(). The safe-mode ops (no DDP package) have no ndo_select_queue",
	     "all"),
	DENY(DRIVER, "nfp",
	     "nfp_netdev_is_nfp_net() and representor checks",
	     "drivers/net/ethernet/netronome/nfp/nfp_net.h:896 nfp_netdev_is_nfp_net(): netdev->netdev_ops == &nfp_nfd3_netdev_ops or &nfp_nfdk_netdev_ops; nfp_net_repr.h:80 nfp_netdev_is_nfp_repr(): == &nfp_repr_netdev_ops (representors are multiqueue, nfp_net_repr.c:431)",
	     "all"),
	DENY(DRIVER, "nfp_netvf",
	     "nfp_netdev_is_nfp_net() checks",
	     "drivers/net/ethernet/netronome/nfp/nfp_net.h:896 nfp_netdev_is_nfp_net(), as for nfp (the VF driver, nfp_netvf_main.c:38)",
	     "all"),
	DENY(DRIVER, "qlcnic",
	     "is_qlcnic_netdev(): IP addresses are programmed into the NIC",
	     "drivers/net/ethernet/qlogic/qlcnic/qlcnic_main.c:4064 is_qlcnic_netdev(dev) (a macro): dev->netdev_ops == &qlcnic_netdev_ops, used by qlcnic_netdev_event() and qlcnic_inetaddr_event() (lines 4128, 4164)",
	     "all"),
	DENY(DRIVER, "am65-cpsw-nuss",
	     "switch port checks",
	     "drivers/net/ethernet/ti/am65-cpsw-nuss.c:2132 am65_cpsw_port_dev_check(): ndev->netdev_ops == &am65_cpsw_nuss_netdev_ops (switchdev, am65-cpsw-switchdev.c)",
	     "all"),
	DENY(DRIVER, "cpsw-switch",
	     "switch port checks",
	     "drivers/net/ethernet/ti/cpsw_new.c:1472 cpsw_port_dev_check(): ndev->netdev_ops == &cpsw_netdev_ops (switchdev, cpsw_switchdev.c)",
	     "all"),
	DENY(DRIVER, "sparx5-switch",
	     "switch port checks",
	     "drivers/net/ethernet/microchip/sparx5/sparx5_netdev.c:247 sparx5_netdevice_check(): dev->netdev_ops == &sparx5_port_netdev_ops",
	     "all"),
	DENY(DRIVER, "lan966x-switch",
	     "switch port checks",
	     "drivers/net/ethernet/microchip/lan966x/lan966x_main.c:475 lan966x_netdevice_check(): dev->netdev_ops == &lan966x_port_netdev_ops",
	     "all"),
	DENY(DRIVER, "ocelot-switch",
	     "switch port checks",
	     "drivers/net/ethernet/mscc/ocelot_net.c:984 ocelot_netdevice_dev_check(): dev->netdev_ops == &ocelot_port_netdev_ops. Its ports are single-queue today (alloc_etherdev()): kept in case they become multiqueue",
	     "all"),
	DENY(DRIVER, "fsl_dpaa2_switch",
	     "switch port checks",
	     "drivers/net/ethernet/freescale/dpaa2/dpaa2-switch.c:1456 dpaa2_switch_port_dev_check(): netdev->netdev_ops == &dpaa2_switch_port_ops; the driver is KBUILD_MODNAME (line 3514) of fsl-dpaa2-switch.ko. Its ports are single-queue today: kept in case they become multiqueue",
	     "all"),
	DENY(DRIVER, "rocker",
	     "switch port checks",
	     "drivers/net/ethernet/rocker/rocker_main.c:2680 rocker_port_dev_check(): dev->netdev_ops == &rocker_port_netdev_ops. Its ports are single-queue today: kept in case they become multiqueue",
	     "all"),
	DENY(DRIVER, "Prestera DX",
	     "switch port checks",
	     "drivers/net/ethernet/marvell/prestera/prestera_main.c:1054 prestera_netdev_check(): dev->netdev_ops == &prestera_netdev_ops; PCI driver name at prestera_pci.c:885. Its ports are single-queue today: kept in case they become multiqueue",
	     "all"),
	DENY(DRIVER, "mlxsw_spectrum",
	     "switch port checks",
	     "drivers/net/ethernet/mellanox/mlxsw/spectrum.c:4082 mlxsw_sp_port_dev_check(): dev->netdev_ops == &mlxsw_sp_port_netdev_ops. Its ports are single-queue today: kept in case they become multiqueue",
	     "all"),
	DENY(DRIVER, "mlxsw_spectrum2",
	     "switch port checks",
	     "drivers/net/ethernet/mellanox/mlxsw/spectrum.c:4082 mlxsw_sp_port_dev_check(), as for mlxsw_spectrum",
	     "all"),
	DENY(DRIVER, "mlxsw_spectrum3",
	     "switch port checks",
	     "drivers/net/ethernet/mellanox/mlxsw/spectrum.c:4082 mlxsw_sp_port_dev_check(), as for mlxsw_spectrum",
	     "all"),
	DENY(DRIVER, "mlxsw_spectrum4",
	     "switch port checks",
	     "drivers/net/ethernet/mellanox/mlxsw/spectrum.c:4082 mlxsw_sp_port_dev_check(), as for mlxsw_spectrum",
	     "all"),

	/* Software devices: the rtnl_link_ops kind. */
	DENY(KIND, "tun",
	     "TUNSETIFF re-attach checks the netdev_ops pointer",
	     "drivers/net/tun.c:2773 tun_set_iff(): dev->netdev_ops == &tun_netdev_ops, :2775 == &tap_netdev_ops. Has its own ndo_select_queue today (tun_select_queue, line 1263): kept in case that goes",
	     "all"),
	DENY(KIND, "team",
	     "team devices are recognised by their netdev_ops",
	     "drivers/net/team/team.c:2447 team_nl_team_get(): dev->netdev_ops != &team_netdev_ops. Has its own ndo_select_queue today (team_select_queue, line 2102): kept in case that goes",
	     "all"),
	DENY(KIND, "ipvlan",
	     "ipvlan devices are recognised by their netdev_ops",
	     "drivers/net/ipvlan/ipvlan_main.c:404 netif_is_ipvlan(): dev->netdev_ops == &ipvlan_netdev_ops (address events on the device would be ignored)",
	     "all"),
	DENY(KIND, "ipvtap",
	     "ipvlan devices are recognised by their netdev_ops",
	     "drivers/net/ipvlan/ipvlan_main.c:404 netif_is_ipvlan(): ipvtap devices share ipvlan_netdev_ops",
	     "all"),
	DENY(KIND, "xfrm",
	     "xfrmi_decode_session(): inbound policies bound to its if_id would not match",
	     "net/xfrm/xfrm_interface_core.c:201 xfrmi_decode_session(): dev->netdev_ops != &xfrmi_netdev_ops (before 5.9 the lookup was by ifindex)",
	     "5.9+"),
	DENY(KIND, "gtp",
	     "gtp_find_dev(): the GTP netlink commands would not find the device",
	     "drivers/net/gtp.c:1321 gtp_find_dev(): dev->netdev_ops == &gtp_netdev_ops (PDP contexts are added through it)",
	     "all"),
	DENY(KIND, "ppp",
	     "ppp_exit_net() would leave the device behind",
	     "drivers/net/ppp/ppp_generic.c:1153 ppp_exit_net(): dev->netdev_ops == &ppp_netdev_ops. Only ppp links made with ip link have several queues",
	     "all"),
	DENY(KIND, "openvswitch",
	     "internal ports are recognised by their netdev_ops",
	     "net/openvswitch/vport-internal_dev.c:225 ovs_is_internal_dev(): netdev->netdev_ops == &internal_dev_netdev_ops. Internal ports are single-queue today (alloc_netdev(), line 136): kept in case they become multiqueue",
	     "all"),

	/* DSA: user ports, and on old kernels the master. */
	DENY(DEVTYPE, "dsa",
	     "DSA user ports are recognised by their netdev_ops",
	     "net/dsa/slave.c:2588 dsa_slave_dev_check(): dev->netdev_ops == &dsa_slave_netdev_ops (bridge, FDB, VLAN and LAG offload); dsa_slave_create() sets the device type dsa_type, named \"dsa\" (lines 2228, 2407), on every kernel",
	     "all"),
	DENY(KIND, "dsa",
	     "DSA user ports are recognised by their netdev_ops",
	     "net/dsa/slave.c:2588 dsa_slave_dev_check(), as for the device type; the kind exists from 6.1 (net/dsa/netlink.c:55)",
	     "6.1+"),
	DENY(DSA_MASTER, "dsa",
	     "this kernel's DSA gives its master a copy of its netdev_ops and puts the old pointer back",
	     "not in 6.1: net/dsa/master.c dsa_master_ndo_setup() and dsa_master_ndo_teardown() save dev->netdev_ops in cpu_dp->orig_ndo_ops, install a copy, and put the saved pointer back (from da7b9e9b00d4; gone in 5.9, \"net: dsa: Setup dsa_netdev_ops\"); probe dsa_orig_ndo_ops",
	     "up to 5.8"),
};

/*
 * NO_XPS(match, name, why, cite, kernels): a driver whose own selection
 * never reads the kernel's XPS map, with the same fields as DENY(). This
 * table is consulted first: some of these are on the denylist too.
 */
#define NO_XPS(match, name, why, cite, kernels) \
	{ XPS_STEER_BY_##match, name, why }

static const struct xps_steer_denied xps_steer_no_xps_list[] = {
	NO_XPS(KIND, "bond",
	       "the recorded receive queue, else queue 0",
	       "drivers/net/bonding/bond_main.c:5451 bond_select_queue(): skb_rx_queue_recorded() ? skb_get_rx_queue() : 0; the slave's own selection runs when the packet reaches it",
	       "all"),
	NO_XPS(KIND, "team",
	       "the recorded receive queue, else queue 0",
	       "drivers/net/team/team.c:1783 team_select_queue(), the same as bonding's",
	       "all"),
	NO_XPS(KIND, "tun",
	       "its flow table or eBPF steering program",
	       "drivers/net/tun.c:561 tun_select_queue(): tun_ebpf_select_queue() or tun_automq_select_queue()",
	       "all"),
	NO_XPS(DRIVER, "hv_netvsc",
	       "the socket's queue and the host's send indirection table; with a VF, the VF's own selection",
	       "drivers/net/hyperv/netvsc_drv.c:295 netvsc_select_queue(): netvsc_pick_tx() uses sk_tx_queue_get() and the tx_table; on Azure the VF (mlx5, mana) is the device to guard",
	       "all"),
	NO_XPS(DRIVER, "mana",
	       "the socket's queue, else the flow hash over its RSS indirection table",
	       "drivers/net/ethernet/microsoft/mana/mana_en.c:491 mana_select_queue(): sk_tx_queue_get(), else mana_get_tx_queue() from skb_get_hash()",
	       "all"),
	NO_XPS(DRIVER, "vif",
	       "the flow hash modulo its queues (xen-netfront)",
	       "drivers/net/xen-netfront.c:585 xennet_select_queue(): skb_get_hash() % real_num_tx_queues",
	       "all"),
};

/*
 * Compared in 6.1.192 but not listed, each with the reason:
 * - bnxt_en: drivers/net/ethernet/broadcom/bnxt/bnxt_vfr.c:255
 *   bnxt_dev_is_vf_rep() compares only its VF representors, which are
 *   single-queue (alloc_etherdev(), bnxt_vfr.c:510); the multiqueue PF
 *   is never compared.
 * - sfc_ef100: drivers/net/ethernet/sfc/tc.c:35 efx_tc_flower_lookup_efv()
 *   compares only its representors (efx_ef100_rep_netdev_ops, one queue:
 *   ef100_rep.c:208); the PF is matched by identity (dev == efx->net_dev).
 * - sfc, sfc_siena, sfc_falcon: drivers/net/ethernet/sfc/efx.c:678,
 *   siena/efx.c:677 efx_netdev_event() and falcon/efx.c:2235
 *   ef4_netdev_event() rename the driver's own names (IRQ and MTD names)
 *   when the device is renamed: after a rename of an attached device
 *   those keep the old name. Cosmetic, so the multiqueue PFs are not
 *   refused.
 * - amd-xgbe: drivers/net/ethernet/amd/xgbe/xgbe-main.c:434
 *   xgbe_netdev_event() (netdev_ops != xgbe_get_netdev_ops()) renames its
 *   debugfs directory: cosmetic, as for sfc.
 * - stmmac, brcm-systemport: stmmac_main.c:6351 stmmac_device_event() and
 *   bcmsysport.c:2426 bcm_sysport_netdevice_event(); both drivers have
 *   their own ndo_select_queue, which refuses them.
 * - mlx5_core, once more: en/tc/act/mirred_nic.c:21
 *   tc_act_can_offload_mirred_nic() compares two devices' netdev_ops
 *   with each other; the driver is listed above.
 * - adin1110, netxen_nic, via-velocity, liquidio VF representors,
 *   brcmfmac, qtnfmac, ATM clip and mpoa: adin1110.c:1169,
 *   netxen_nic_main.c:3154, via-velocity.c:3675, lio_vf_rep.c:624,
 *   brcmfmac/core.c:931, qtnfmac/core.c:644, net/atm/clip.c:570 and
 *   net/atm/mpc.c:332 compare devices that are single-queue (one TX
 *   queue each), which are refused as such.
 */

static bool xps_steer_dsa_master(const struct net_device *dev)
{
#if IS_ENABLED(CONFIG_NET_DSA) && defined(XPS_STEER_HAVE_DSA_ORIG_NDO_OPS)
	/* Set by dsa_master_setup() before it swaps the ops. */
	return dev->dsa_ptr;
#else
	return false;
#endif
}

static bool xps_steer_matches(const struct xps_steer_denied *entry,
			      const struct net_device *dev)
{
	const struct device *parent = dev->dev.parent;

	switch (entry->match) {
	case XPS_STEER_BY_DRIVER:
		return parent && parent->driver &&
		       !strcmp(parent->driver->name, entry->name);
	case XPS_STEER_BY_KIND:
		return dev->rtnl_link_ops && dev->rtnl_link_ops->kind &&
		       !strcmp(dev->rtnl_link_ops->kind, entry->name);
	case XPS_STEER_BY_DEVTYPE:
		return dev->dev.type && dev->dev.type->name &&
		       !strcmp(dev->dev.type->name, entry->name);
	case XPS_STEER_BY_DSA_MASTER:
		return xps_steer_dsa_master(dev);
	}
	return false;
}

static bool find(const struct xps_steer_denied *list, size_t n,
		 const struct net_device *dev, const char **driver,
		 const char **why)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (xps_steer_matches(&list[i], dev)) {
			*driver = list[i].name;
			*why = list[i].why;
			return true;
		}
	}
	return false;
}

/*
 * True if dev must not be wrapped; *driver and *why then say which
 * driver and the reason, for the log line.
 */
bool xps_steer_denied(const struct net_device *dev, const char **driver,
		      const char **why)
{
	return find(xps_steer_denylist, ARRAY_SIZE(xps_steer_denylist), dev,
		    driver, why);
}

/*
 * True if dev's driver picks its queues without the kernel's XPS map;
 * *driver and *why then say which driver and how it picks them.
 */
bool xps_steer_ignores_xps(const struct net_device *dev, const char **driver,
			   const char **why)
{
	return find(xps_steer_no_xps_list, ARRAY_SIZE(xps_steer_no_xps_list),
		    dev, driver, why);
}
