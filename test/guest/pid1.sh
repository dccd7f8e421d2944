# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# pid1.sh - the start and the end of a guest script that runs as PID 1
# (init=/test/<script>) in the image of `make check-install`: install.sh
# and numa.sh. Sourced first, before lib.sh (which needs /tmp).

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C

mnt() {	# TYPE DIR: mount unless already mounted (the initramfs moves some)
	mountpoint -q "$2" 2>/dev/null || mount -t "$1" "$1" "$2"
}

# pid1_start HOSTNAME: as PID 1, the file systems the tests use.
pid1_start() {
	[ "$$" = 1 ] || return 0
	mnt proc /proc
	mnt sysfs /sys
	mnt devtmpfs /dev
	mkdir -p /dev/pts
	mnt devpts /dev/pts
	mnt tmpfs /run
	mnt tmpfs /tmp
	mnt tracefs /sys/kernel/tracing
	mnt debugfs /sys/kernel/debug
	hostname "$1"
}

# pid1_end RC: as PID 1, the lines the host reads (the kernel's taint,
# the exit status RC), then power off; otherwise the status: 0 iff RC is 0.
pid1_end() {
	if [ "$$" = 1 ]; then
		echo
		echo "XPS_STEER_GUEST_TAINT=$(cat /proc/sys/kernel/tainted)"
		echo "XPS_STEER_GUEST_EXIT=$1"
		sync
		echo o >/proc/sysrq-trigger
		sleep 30
	fi
	[ "$1" = 0 ]
}
