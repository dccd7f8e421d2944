# SPDX-License-Identifier: GPL-2.0
#
# make                build xps_steer.ko for the running kernel (KDIR= to override)
# make demo           boot a QEMU guest and show steering per CPU
# make check          lint, build and run the test suite in a QEMU guest
# make fuzz           fuzz the map builder for FUZZ_SECONDS (default 300)
# make fuzz-ci        the same, 60 s (the CI round)
# make fuzz-selftest  plant bugs in a copy of src/map.c; each must be found
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

FUZZ_SECONDS ?= 300
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) test/fuzz/run.sh

fuzz-ci:
	FUZZ_SECONDS=60 test/fuzz/run.sh

fuzz-selftest:
	FUZZ_SECONDS=60 test/fuzz/selftest.sh

.PHONY: all modules clean kdir-exists check demo fuzz fuzz-ci fuzz-selftest
