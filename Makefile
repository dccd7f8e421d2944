# SPDX-License-Identifier: GPL-2.0
#
# make                build xps_steer.ko for the running kernel (KDIR= to override)
# make demo           boot a QEMU guest and show steering per CPU
# make check          lint, build and run the test suite in a QEMU guest
# make check-matrix   build, DKMS-install and boot the suite on every Debian
#                     kernel (bullseye .. sid); writes docs/compat.md
# make clean

KDIR ?= /lib/modules/$(shell uname -r)/build

all: modules

modules: kdir-exists
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean: kdir-exists
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean

kdir-exists:
	@test -d $(KDIR) || { echo "No kernel build directory at $(KDIR):" \
		"install linux-headers-$$(uname -r) or pass KDIR=<kernel build dir>." >&2; exit 1; }

check:
	test/check.sh

demo:
	test/demo.sh

.PHONY: check-matrix
check-matrix:
	test/matrix.sh

.PHONY: all modules clean kdir-exists check demo
