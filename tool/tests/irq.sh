#!/bin/bash
# irq.sh - the transmit queues' interrupts (irq.c) and the irq policy:
# fake /proc/interrupts, /proc/irq/<n>/ and msi_irqs, for the names
# drivers give their vectors.
# run.sh sources lib.sh first; this line is for shellcheck.
# shellcheck source=lib.sh
[ -n "${T_DIR:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# irq_proc LINE...: /proc/interrupts with a 4-CPU header and these lines,
# each "N NAME" (a PCI-MSI vector) or "N NAME1, NAME2" (shared).
irq_proc() {
	local f n name
	mkdir -p "$(R /proc)"
	f=$(R /proc/interrupts)
	printf '%12s%11s%11s%11s\n' CPU0 CPU1 CPU2 CPU3 >"$f"
	printf '%4s: %10d %10d %10d %10d   IO-APIC   2-edge      timer\n' 0 35 0 0 0 >>"$f"
	for line in "$@"; do
		n=${line%% *} name=${line#* }
		printf '%4s: %10d %10d %10d %10d   PCI-MSI %d-edge      %s\n' \
			"$n" 7 0 0 0 "$((49152 + n))" "$name" >>"$f"
	done
	printf '%4s: %10d %10d %10d %10d   Non-maskable interrupts\n' NMI 0 0 0 0 >>"$f"
	printf '%4s: %10d %10d %10d %10d   Local timer interrupts\n' LOC 9 9 9 9 >>"$f"
}

# irq_aff N EFFECTIVE [SMP]: /proc/irq/N/; "-" leaves a file out.
irq_aff() {
	local d
	d=$(R "/proc/irq/$1")
	mkdir -p "$d"
	[ "$2" = - ] || echo "$2" >"$d/effective_affinity_list"
	[ "${3:--}" = - ] || echo "$3" >"$d/smp_affinity_list"
}

# irq_msi IF N...: the device's msi_irqs/ (for virtio, its PCI parent's).
irq_msi() {
	local d
	d=$(realpath "$(R "/sys/class/net/$1/device")")
	case ${d##*/} in virtio*) d=${d%/*} ;; esac
	shift
	mkdir -p "$d/msi_irqs"
	for n in "$@"; do echo msix >"$d/msi_irqs/$n"; done
}

# irq_virtio IF NQ VIRTIO: IF as virtio_net makes it: its device is
# virtioN, a child of the PCI function 0000:00:03.0.
irq_virtio() {
	local pci
	fake_netdev "$1" "$2" virtio_net 52:54:00:12:34:56 0000:00:03.0 0
	pci=$(R /sys/devices/pci0000:00/0000:00:03.0)
	mkdir -p "$pci/$3"
	ln -s "../../../../bus/virtio/drivers/virtio_net" "$pci/$3/driver"
	rm "$(R "/sys/class/net/$1/device")"
	ln -s "../../../devices/pci0000:00/0000:00:03.0/$3" \
		"$(R "/sys/class/net/$1/device")"
}

# virtio_net: virtioN-output.<q> are the tx vectors (input.<q> rx, config
# the rest); another virtio device's vectors must not be taken. tx-2's
# IRQ has no effective affinity: smp_affinity_list. Written through the
# module.
test_tool_irq_virtio() {
	fake_cpus 4
	irq_virtio eth0 4 virtio0
	fake_module "eth0 attached queues=4 active=4 hook=installed name=eth0"
	fake_attached eth0 4
	irq_proc "24 virtio0-config" "25 virtio0-input.0" "26 virtio0-output.0" \
		"27 virtio0-input.1" "28 virtio0-output.1" "29 virtio0-input.2" \
		"30 virtio0-output.2" "31 virtio0-input.3" "32 virtio0-output.3" \
		"40 virtio1-output.0" "41 virtio10-output.1"
	irq_msi eth0 24 25 26 27 28 29 30 31 32
	for n in 24 25 27 29 31 40 41; do irq_aff "$n" 0; done
	irq_aff 26 3 0-3
	irq_aff 28 2 0-3
	irq_aff 30 - 1-2
	irq_aff 32 0 0-3
	xs auto eth0 --policy irq
	expect_rc 0
	expect_eq "table" "tx-0 3
tx-1 2
tx-2 1-2
tx-3 0" "$out"
	expect_eq "no notes" "" "$errtext"
	expect_eq "map file" "$out" "$(cat "$(R /sys/kernel/xps_steer/eth0/map)")"
	# status shows the same IRQs (device_load uses irq_find_queues).
	xs status eth0 --json
	expect_rc 0
	expect_eq "status irqs" "26:3 28:2 30:1-2 32:0" \
		"$(jq -r '[.devices[0].queues[] | "\(.irq):\(.irq_affinity)"] | join(" ")' "$T_DIR/out")"
}

# "eth0-TxRx-<q>" (igb): only the device's own MSI vectors count: IRQ 60
# is eth0-TxRx-1 of a device since renamed (its name stays), veth0 is
# another device. tx-3 has no vector: empty, with a note; tx-2's goes to
# an isolated CPU only.
test_tool_irq_txrx() {
	fake_cpus 4 3
	fake_netdev eth0 4 igb 52:54:00:12:34:56 0000:01:00.0 0
	irq_proc "60 eth0-TxRx-1" "61 eth0" "62 eth0-TxRx-0" "63 eth0-TxRx-1" \
		"64 eth0-TxRx-2" "70 veth0-TxRx-3"
	irq_msi eth0 61 62 63 64
	irq_aff 60 0
	irq_aff 62 0-1 0-3
	irq_aff 63 1
	irq_aff 64 3
	irq_aff 70 2
	xs auto eth0 --policy irq --dry-run
	expect_rc 0
	expect_eq "table" "tx-0 0-1
tx-1 1
tx-2
tx-3" "$out"
	expect_eq "notes" "note: tx-2: its IRQ goes to excluded CPUs only (3): no CPU
note: tx-3: no IRQ found (or no affinity for it): no CPU
note: CPUs 3 (isolated or nohz_full) are in no queue: they keep the stock selection" "$errtext"
	# Without msi_irqs/ (not PCI MSI), every name counts: the first wins.
	rm -r "$(R /sys/devices/pci0000:00/0000:01:00.0/msi_irqs)"
	xs auto eth0 --policy irq --dry-run --json
	expect_rc 0
	expect_eq "json" "0:0-1 1:0 2: 3:" \
		"$(jq -r '[.queues[] | "\(.queue):\(.cpus)"] | join(" ")' "$T_DIR/out")"
}

# The other names drivers use, one device each (dry run, kernel backend):
# i40e/ice "<drv>-<if>-TxRx-<q>", ixgbe/igb "<if>-tx-<q>", lower case
# "<if>-txrx-<q>", mlx5 "mlx5_comp<q>@pci:<bus>"; a shared line.
test_tool_irq_name_patterns() {
	local spec ifn names want
	fake_cpus 4
	for spec in "i40e eth0 i40e-eth0-TxRx-" "ixgbe eth0 eth0-tx-" \
		"nfp ens1f0 ens1f0-txrx-" "mlx5_core eth0 mlx5_comp"; do
		read -r drv ifn names <<<"$spec"
		rm -rf "$(R /sys)" "$(R /proc)"
		fake_cpus 4
		fake_netdev "$ifn" 3 "$drv" 52:54:00:12:34:56 0000:3b:00.0 0
		if [ "$drv" = mlx5_core ]; then
			irq_proc "80 mlx5_async0@pci:0000:3b:00.0" \
				"81 mlx5_comp0@pci:0000:3b:00.0" \
				"82 mlx5_comp1@pci:0000:3b:00.1" \
				"83 mlx5_comp1@pci:0000:3b:00.0" \
				"84 mlx5_comp2@pci:0000:3b:00.0"
		else
			irq_proc "80 ${names}0x" "81 ${names}0" "82 ${ifn}-rx-1" \
				"83 ${names}1" "84 other, ${names}2"
		fi
		irq_aff 80 3
		irq_aff 81 0
		irq_aff 82 3
		irq_aff 83 1
		irq_aff 84 2
		xs auto "$ifn" --policy irq --dry-run
		expect_rc 0
		want="tx-0 0
tx-1 1
tx-2 2"
		expect_eq "$drv table" "$want" "$out"
		expect_eq "$drv notes" "" "$errtext"
	done
}

# No tx vector found: an error, exit 1, nothing written.
test_tool_irq_none_found() {
	fake_cpus 4
	fake_netdev eth0 2 igb 52:54:00:12:34:56 0000:01:00.0 0
	fake_module "eth0 attached queues=2 active=2 hook=installed name=eth0"
	fake_attached eth0 2
	xs auto eth0 --policy irq
	expect_rc 1
	expect_eq "no /proc/interrupts" "xps-steer: auto: eth0: policy irq: no transmit queue IRQs found for eth0" "$errtext"
	expect_eq "no table" "" "$out"
	irq_proc "50 eth1-TxRx-0" "51 eth0-rx-0" "52 eth0-TxRx-x"
	irq_aff 50 0
	irq_aff 51 1
	xs auto eth0 --policy irq
	expect_rc 1
	expect_eq "no match" "xps-steer: auto: eth0: policy irq: no transmit queue IRQs found for eth0" "$errtext"
	expect_eq "map untouched" "tx-0
tx-1" "$(cat "$(R /sys/kernel/xps_steer/eth0/map)")"
}
