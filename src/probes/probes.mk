# SPDX-License-Identifier: GPL-2.0
#
# Compile probes, included by the top-level Kbuild, so that `make`, a plain
# kbuild `make -C <kdir> M=<dir>` and DKMS all run them.
#
# Each src/probes/<name>.c is compiled with this kernel's own flags for
# module code plus -Werror; config.sh turns the results into
# xps_steer_config.h, which src/compat.h includes. Every probe is its own
# target, so `make -j` runs them in parallel, and if_changed reruns one
# only when its source or its command line (the kernel, the compiler,
# the flags) changed. Failed probes keep their compiler output in
# .probes/<name>.log.

xps_probes := $(sort $(basename $(notdir $(wildcard $(src)/src/probes/*.c))))
xps_probe_results := $(patsubst %,$(obj)/.probes/%.result,$(xps_probes))
targets += $(xps_probe_results)

# The same flags kbuild uses for this module's objects, minus the
# dependency file, plus -Werror: a probe that warns is a probe that fails.
# Minus W=1's -Wextra too, so that W=1 does not change what the probes
# find: older kernels' own headers warn under it (RHEL 7.9's timer_setup()
# casts its callback, include/linux/timer.h:168, -Wcast-function-type
# from gcc 8 on), which with -Werror failed every probe, the control first.
# KBUILD_MODNAME is set here, not left to kbuild: the module's pr_fmt
# uses it, and kbuild before 4.x defines it only for objects listed in a
# module (3.10 gives a probe none), later ones from the file name.
$(xps_probe_results): part-of-module := y
quiet_cmd_xps_probe = PROBE   $(basename $(notdir $@))
      cmd_xps_probe = mkdir -p $(dir $@); \
	if $(CC) $(filter-out -Wp$(comma)-MMD$(comma)% -Wextra,$(c_flags)) \
		-UKBUILD_MODNAME -DKBUILD_MODNAME='"xps_steer"' \
		-DXPS_STEER_PROBE -Werror -c -o $(@:.result=.o) $< \
		>$(@:.result=.log) 2>&1; \
	then echo 1; else echo 0; fi >$@

$(obj)/.probes/%.result: $(src)/src/probes/%.c FORCE
	$(call if_changed,xps_probe)

# Runs on every build so the build log always shows the variants; the
# header is only rewritten when a result changed.
$(obj)/xps_steer_config.h: $(xps_probe_results) $(src)/src/probes/config.sh FORCE
	$(Q)$(CONFIG_SHELL) $(src)/src/probes/config.sh $@ $(xps_probe_results)

$(addprefix $(obj)/,$(xps_steer-y)): $(obj)/xps_steer_config.h

clean-files += .probes xps_steer_config.h
