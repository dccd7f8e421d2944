# SPDX-License-Identifier: GPL-2.0
#
# make                build xps_steer.ko for the running kernel (KDIR= to override)
# make demo           boot a QEMU guest and show steering per CPU
# make check          lint, build and run the test suite in a QEMU guest
# make check-stress   stress suite on the stock guest kernel (QEMU, 4 of 8 CPUs)
# make check-debug    functional + stress suite on a KASAN/lockdep/kmemleak
#                     debug kernel (built once from linux-source-6.1, cached)
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

check-stress:
	test/check-stress.sh

check-debug:
	test/check-debug.sh

.PHONY: all modules clean kdir-exists check demo check-stress check-debug
