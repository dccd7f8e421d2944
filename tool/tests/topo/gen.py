#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gen.py - how the hwloc XML topologies of the tool's tests were made.

The XML files are committed fixtures; this script documents them and can
remake them (needs lstopo-no-graphics and hwloc-annotate from Debian's
hwloc package): `cd tests/topo && ./gen.py`. Each machine is an hwloc
synthetic description (lstopo --if synthetic) with Linux-like OS indexes
for the hardware threads, then edited here: a PCI NIC with its network OS
device (eth0) under one package, CPUs hwloc cannot place (offline) in the
machine's complete cpuset, and NUMA latencies (hwloc-annotate).
"""
import os
import subprocess
import tempfile
import xml.etree.ElementTree as ET

KB, MB, GB = 1 << 10, 1 << 20, 1 << 30


def synthetic(desc, out):
    subprocess.run(["lstopo-no-graphics", "--if", "synthetic", "--input",
                    desc, "--of", "xml", "-f", out], check=True)


def indexes(order):
    """The indexes= attribute of the PUs, in logical order."""
    return "indexes=" + ",".join(str(i) for i in order)


def smt_order(sockets, cores, threads, total_cores):
    """Linux's x86 numbering: core c's threads are c, c + cores, ..."""
    return [c + t * total_cores for c in range(sockets * cores)
            for t in range(threads)]


def add_nic(root, package, busid, ifname, vendor_dev):
    """A host bridge, a PCI Ethernet function and its netdev below package."""
    pkg = next(o for o in root.iter("object")
               if o.get("type") == "Package" and o.get("os_index") == str(package))
    bus = busid.split(":")[1]
    bridge = ET.SubElement(pkg, "object", {
        "type": "Bridge", "gp_index": "9001", "bridge_type": "0-1",
        "depth": "0", "bridge_pci": "0000:[%s-%s]" % (bus, bus)})
    pci = ET.SubElement(bridge, "object", {
        "type": "PCIDev", "gp_index": "9002", "pci_busid": busid,
        "pci_type": "0200 [%s] [%s] 01" % (vendor_dev, vendor_dev),
        "pci_link_speed": "0.000000"})
    ET.SubElement(pci, "object", {
        "type": "OSDev", "gp_index": "9003", "name": ifname,
        "osdev_type": "2"})


def hexset(cpus):
    """hwloc's XML bitmap syntax: 32-bit words, most significant first."""
    v = sum(1 << c for c in cpus)
    words = []
    while True:
        words.append("0x%08x" % (v & 0xffffffff))
        v >>= 32
        if not v:
            break
    return ",".join(reversed(words))


def make(name, desc, nic=None, offline=(), distances=None):
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "raw.xml")
        synthetic(desc, raw)
        tree = ET.parse(raw)
        root = tree.getroot()
        machine = root.find("object")
        if nic:
            add_nic(machine, *nic)
        if offline:
            # Linux has no topology for an offline CPU: hwloc keeps only
            # its number, in the machine's complete cpuset.
            online = [c for c in range(4096)
                      if int(machine.get("cpuset").replace(",", "").replace("0x", ""), 16) >> c & 1]
            machine.set("complete_cpuset", hexset(online + list(offline)))
        tree.write(raw, encoding="UTF-8", xml_declaration=True)
        if distances:
            n = len(distances)
            spec = os.path.join(tmp, "dist")
            with open(spec, "w") as f:
                f.write("name=NUMALatency\n5\n%d\n" % n)
                f.write("".join("NUMANode:%d\n" % i for i in range(n)))
                f.write("".join("%d\n" % v for row in distances for v in row))
            subprocess.run(["hwloc-annotate", raw, raw, "--", "none", "--",
                            "distances", spec], check=True)
        # Through hwloc once more: it checks the file and normalises it.
        subprocess.run(["lstopo-no-graphics", "--input", raw, "--of", "xml",
                        "-f", name], check=True)


L1, L2 = "l1d:1(size=%d)" % (48 * KB), "(size=%d)" % (2 * MB)

# (a) 2 sockets x 16 cores x 2 threads (Xeon-like): one NUMA node and one
# L3 per socket, L2 and L1d per core; threads of core c are c and c+32.
# eth0 (an X710 function) is on socket 1, NUMA node 1.
make("2s-16c-smt2.xml",
     "pack:2 [numa(memory=%d)] l3:1(size=%d) l2:16%s %s core:1 pu:2(%s)"
     % (64 * GB, 32 * MB, L2, L1, indexes(smt_order(2, 16, 2, 32))),
     nic=(1, "0000:3b:00.0", "eth0", "8086:1572"),
     distances=[[10, 21], [21, 10]])

# (b) 1 socket x 4 cores, no SMT; eth0 on the one package.
make("1s-4c.xml",
     "pack:1 [numa(memory=%d)] l3:1(size=%d) l2:4%s %s core:1 pu:1"
     % (16 * GB, 8 * MB, L2, L1),
     nic=(0, "0000:01:00.0", "eth0", "8086:1533"))

# (c) 128 CPUs: 2 sockets (EPYC 7543-like, NPS1: one NUMA node per socket)
# x 4 L3 caches (CCDs) x 8 cores x 2 threads; threads of core c are c and
# c+64. eth0 on socket 1.
make("2s-4l3-8c-smt2.xml",
     "pack:2 [numa(memory=%d)] l3:4(size=%d) l2:8(size=%d) %s core:1 pu:2(%s)"
     % (256 * GB, 32 * MB, 512 * KB, "l1d:1(size=%d)" % (32 * KB),
        indexes(smt_order(2, 32, 2, 64))),
     nic=(1, "0000:c1:00.0", "eth0", "15b3:1017"),
     distances=[[10, 32], [32, 10]])

# (d) 4 NUMA nodes (4 packages) x 2 cores x 2 threads; threads of core c
# are c and c+8. eth0 on node 2, whose nearest other node is 3 (16), then
# 0 and 1 (21): distance order 2, 3, 0, 1; node number order 2, 0, 1, 3.
make("4n-2c-smt2.xml",
     "pack:4 [numa(memory=%d)] l3:1(size=%d) l2:2%s %s core:1 pu:2(%s)"
     % (8 * GB, 16 * MB, L2, L1, indexes(smt_order(4, 2, 2, 8))),
     nic=(2, "0000:81:00.0", "eth0", "8086:1572"),
     distances=[[10, 16, 21, 21], [16, 10, 21, 21],
                [21, 21, 10, 16], [21, 21, 16, 10]])

# (e) 1 socket x 4 cores x 2 threads with SMT switched off at run time
# (/sys/devices/system/cpu/smt/control = off): CPUs 4-7 (the second
# threads) are offline, in the complete cpuset only.
make("1s-4c-smt-off.xml",
     "pack:1 [numa(memory=%d)] l3:1(size=%d) l2:4%s %s core:1 pu:1"
     % (16 * GB, 8 * MB, L2, L1),
     nic=(0, "0000:01:00.0", "eth0", "8086:1533"), offline=range(4, 8))
