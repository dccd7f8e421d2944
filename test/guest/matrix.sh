#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# matrix.sh - guest side of `make check-matrix` (test/matrix.sh): records
# the compat variants the module detected, then runs the whole functional
# suite (its KTAP output and exit status are the result).
#
# The module is the DKMS-installed one of the booted distro kernel, loaded
# by name.  Its variants are read from /sys/module/xps_steer/features (if
# this version of the module has that file) and printed as one
# "# XPS_STEER_FEATURES: ..." line, which the host copies into docs/compat.md.

# dev= is required; a name that does not exist just waits for the device.
if modprobe xps_steer dev=xpsfeat0 >/tmp/features-modprobe.out 2>&1; then
	if [ -r /sys/module/xps_steer/features ]; then
		echo "# XPS_STEER_FEATURES: $(tr '\n' ' ' </sys/module/xps_steer/features)"
	else
		echo "# this xps_steer has no /sys/module/xps_steer/features"
	fi
	modprobe -r xps_steer
else
	echo "# modprobe xps_steer (to read its features) failed:"
	sed 's/^/#   /' /tmp/features-modprobe.out
fi
exec bash "$(dirname "$0")/suite.sh" "$@"
