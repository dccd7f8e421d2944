# SPDX-License-Identifier: GPL-2.0
#
# make                build xps_steer.ko for the running kernel (KDIR= to override)
# make demo           boot a QEMU guest and show steering per CPU
# make check          lint, build and run the test suite in a QEMU guest
# make fuzz           fuzz the map builder for FUZZ_SECONDS (default 300)
# make fuzz-ci        the same, 60 s (the CI round)
# make fuzz-selftest  plant bugs in a copy of src/map.c; each must be found
# make bench          benchmark against stock selection and kernel XPS (docs/perf.md)
# make clean
# make dkms-install   register, build and install with DKMS (KVER= kernel,
#                     default the running one); make dkms-uninstall
# make deb            build/deb/xps-steer-dkms_<ver>_all.deb (+ lintian)
# make rpm            build/rpm/xps-steer-dkms-<ver>-1.noarch.rpm
# make check-packages both, then compare their contents
# make check-dkms     dkms add/build/install/remove with bullseye's, bookworm's
#                     and sid's own dkms (chroots)
# make check-rpm      the .rpm's %post/%preun with rpm in a Debian 12 chroot
# make check-install  install the .deb in a Debian 12 chroot and boot it
# make check-version  VERSION = dkms.conf = debian/changelog = rpm spec

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

check-version:
	scripts/pkg.sh check-version

dkms-install:
	scripts/pkg.sh dkms-install $(KVER)

dkms-uninstall:
	scripts/pkg.sh dkms-uninstall

deb:
	scripts/pkg.sh deb

rpm:
	scripts/pkg.sh rpm

check-packages:
	scripts/pkg.sh compare "$$(scripts/pkg.sh deb)" "$$(scripts/pkg.sh rpm)"

check-dkms:
	test/dkms-test.sh

check-rpm:
	test/rpm-test.sh

check-install:
	test/install-test.sh

FUZZ_SECONDS ?= 300
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) test/fuzz/run.sh

fuzz-ci:
	FUZZ_SECONDS=60 test/fuzz/run.sh

fuzz-selftest:
	FUZZ_SECONDS=60 test/fuzz/selftest.sh

.PHONY: all modules clean kdir-exists check demo check-version dkms-install \
	dkms-uninstall deb rpm check-packages check-dkms \
	check-rpm check-install fuzz fuzz-ci fuzz-selftest
bench:
	test/bench.sh

.PHONY: bench
