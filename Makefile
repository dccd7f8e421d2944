# SPDX-License-Identifier: GPL-2.0
#
# Build and install:
#   make                 build xps_steer.ko for the running kernel (KDIR= for another)
#   make clean
#   make dkms-install    register, build and install with DKMS (KVER= kernel,
#                        default the running one); make dkms-uninstall
#   make deb             build/deb/xps-steer-dkms_<ver>_all.deb and
#                        xps-steer_<ver>_<arch>.deb (+ lintian)
#   make rpm             build/rpm/xps-steer-dkms-<ver>-1.noarch.rpm and
#                        xps-steer-<ver>-1.<arch>.rpm
#
# Try and test, as root on Debian 12 (each installs what it needs with apt):
#   make demo            boot a QEMU guest and show CPU -> queue per packet;
#                        then a virtio-net NIC whose driver resets the
#                        kernel's own map on CPU hotplug, xps_steer's kept
#   make check           lint, the tool's tests (host, ASan/UBSan), build,
#                        the functional suite in a QEMU guest,
#                        the bad-input catalogue check and check-nics;
#                        T=name[,name...] runs just those tests (`lint` names
#                        the static checks; names: test/guest/suite.sh --list,
#                        test/guest/nics.sh --list)
#   make check-nics      steering, unload under traffic, driver reload and
#                        ethtool -L on real NIC drivers in guests (virtio-net,
#                        vmxnet3, igb with sid's QEMU); T=nic_<driver>_<test>,...
#                        boots just those drivers (test/guest/nics.sh --list)
#   make check-matrix    build, DKMS-install and boot the suite on Debian's 5.10,
#                        6.1, 6.12 and 7.x kernels; writes docs/compat.md
#                        (T=name,... boots just those tests)
#   make check-install   apt install the .deb in a Debian 12 chroot, boot it with
#                        a 4-queue virtio-net NIC, steer per packet; and boot it
#                        as a 2-node NUMA machine: xps-steer auto's policies
#   make check-packages  build the .debs and .rpms, compare them package by
#                        package
#   make check-dkms      dkms 2.8/3.x add/build/install/remove in chroots
#   make check-rpm       the .rpms' scriptlets with rpm in a Debian 12 chroot
#                        (several kernels)
#   make check-version   VERSION = dkms.conf = debian/changelog = rpm spec
#   make check-stress    the stress suite on the stock guest kernel (T=name,...
#                        as for check, names: test/guest/stress.sh --list;
#                        COUNTS="CYCLES=20 ..." for a quick round)
#   make check-busy      make check 5 times, then make demo 3 times, each from a
#                        fresh clone, while stress-ng keeps every host CPU busy
#                        (BUSY="RUNS=2 DEMOS=1" for fewer)
#   make check-debug     functional + stress suite (or T=...) on a KASAN/lockdep/kmemleak
#                        debug kernel (built once from linux-source-6.1)
#   make fuzz            fuzz the map builder, the map-file parser and the dev=
#                        list parser, each for FUZZ_SECONDS (default 300);
#                        fuzz-ci: 60 s; fuzz-selftest: planted bugs must be found
#   make bench           cost, locality and throughput against stock selection
#                        and the kernel's XPS; writes docs/perf.md, docs/perf.png
#   make ci              what .ci/run runs
#   make warm            fill every cache CI uses (host packages, guest kernel,
#                        checkpatch, the Debian chroots, the sid QEMU tree) and
#                        nothing else; first thing on a new machine, in the
#                        background if you like

KDIR ?= /lib/modules/$(shell uname -r)/build

all: modules

modules: kdir-exists
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean: kdir-exists
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean

kdir-exists:
	@test -d $(KDIR) || { echo "No kernel build directory at $(KDIR):" \
		"install linux-headers-$$(uname -r) or pass KDIR=<kernel build dir>." >&2; exit 1; }

dkms-install:
	scripts/pkg.sh dkms-install $(KVER)

dkms-uninstall:
	scripts/pkg.sh dkms-uninstall

deb:
	scripts/pkg.sh deb

rpm:
	scripts/pkg.sh rpm

# T=name[,name...]: the tests to run, by name (make check, check-nics,
# check-stress, check-matrix); an unknown name is refused before anything boots.
T ?=
COUNTS ?=
t_arg = $(if $(T),"T=$(T)")

demo:
	test/demo.sh

check:
	test/check.sh $(t_arg)

check-nics:
	test/check-nics.sh $(t_arg)

check-matrix:
	test/check-matrix.sh $(t_arg)

check-install:
	test/check-install.sh

check-packages:
	scripts/pkg.sh compare "$$(scripts/pkg.sh deb)" "$$(scripts/pkg.sh rpm)"

check-dkms:
	test/check-dkms.sh

check-rpm:
	test/check-rpm.sh

check-version:
	scripts/pkg.sh check-version

check-stress:
	test/check-stress.sh $(t_arg) $(COUNTS)

check-busy:
	test/check-busy.sh $(BUSY)

check-debug:
	test/check-debug.sh $(t_arg) $(COUNTS)

FUZZ_SECONDS ?= 300
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) test/fuzz/run.sh

fuzz-ci:
	FUZZ_SECONDS=60 test/fuzz/run.sh

fuzz-selftest:
	FUZZ_SECONDS=60 test/fuzz/selftest.sh

bench:
	test/bench.sh

ci:
	.ci/run

warm:
	test/warm.sh

.PHONY: all modules clean kdir-exists dkms-install dkms-uninstall deb rpm \
	demo check check-busy check-nics check-matrix check-install check-packages check-dkms \
	check-rpm check-version check-stress check-debug fuzz fuzz-ci \
	fuzz-selftest bench ci warm
